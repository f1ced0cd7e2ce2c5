-- A season's wrap-up is posted once: whoever sets wrapped_at (only where it is NULL) posts it.
ALTER TABLE leagues ADD COLUMN wrapped_at TEXT;

-- A finished game's finishing order, worked out once from its final state (the rules'
-- classification) the first time ratings need it; finished games never change.
CREATE TABLE game_placings (
    game_id BIGINT  NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seat    INTEGER NOT NULL CHECK (seat >= 0),
    place   INTEGER,
    status  TEXT    NOT NULL,
    PRIMARY KEY (game_id, seat)
);

CREATE INDEX games_finished_by_guild ON games (guild_id) WHERE status = 'finished';
