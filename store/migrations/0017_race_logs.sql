-- A finished league race's log in words (store/race_logs.py), kept by the bot at the finish
-- so that the league site's race page does not replay the race; made at `seq` (a race taken
-- back and finished again keeps a new one). A race without one is replayed by the site.
CREATE TABLE race_logs (
    game_id  INTEGER PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
    seq      INTEGER NOT NULL,
    log_json TEXT    NOT NULL
);
