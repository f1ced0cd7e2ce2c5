-- What the live prompt of a race carries besides its question (the lines it opened with, the
-- lines of the move's steps so far, its text without them), as JSON: kept with the game so
-- that a restart neither drops those lines from the next edit nor tells them twice.
ALTER TABLE games ADD COLUMN feed_json TEXT;
