-- Taking a move back (issue 27). Each append keeps, beside the new snapshot, the sequence
-- number it started from and the game's timers as they were then (a JSON array): an undo of
-- that append's one action restores the timers (its deadline included) exactly; the state
-- it returns to is the log replayed without the action (store/undo.py). An undo or a
-- rewind is itself a log entry (a mark), never a delete, and leaves no prior behind.
ALTER TABLE game_snapshots ADD COLUMN prior_seq INTEGER;
ALTER TABLE game_snapshots ADD COLUMN prior_timers_json TEXT;
