-- Finished races give back their threads: a race's thread is archived this many hours after
-- the race ends (classification posted, abandoned or cancelled); a league setting.
ALTER TABLE leagues ADD COLUMN archive_hours INTEGER NOT NULL DEFAULT 1;
