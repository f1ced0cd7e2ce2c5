-- The table layer (one for every game): what reached the thread, autopilot, idle races,
-- DM reminders and whether robots take league places.

-- The sequence number whose board and prompt were posted; a running game whose snapshot is
-- ahead of it gets them posted at start-up (a bot killed between commit and prompt).
ALTER TABLE games ADD COLUMN published_seq INTEGER;
-- The live prompt message: edited for sub-steps, stripped of its buttons when superseded.
ALTER TABLE games ADD COLUMN prompt_message_id INTEGER;
-- Unix time of the last action a person took; a race idle for its setting's days is abandoned.
ALTER TABLE games ADD COLUMN last_human_at REAL;
-- Games that existed before this migration were published as far as they went.
UPDATE games SET published_seq = (SELECT seq FROM game_snapshots s WHERE s.game_id = games.id);

ALTER TABLE game_seats ADD COLUMN autopilot INTEGER NOT NULL DEFAULT 0;
CREATE INDEX game_seats_by_user ON game_seats (user_id);

-- Off (default): league points go to members by their order among members.
ALTER TABLE leagues ADD COLUMN robots_take_places INTEGER NOT NULL DEFAULT 0;

CREATE TABLE user_settings (
    user_id      INTEGER PRIMARY KEY,
    dm_reminders INTEGER NOT NULL DEFAULT 0
);
