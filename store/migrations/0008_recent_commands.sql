-- The games a command made in the last few seconds, by channel, user and command (its
-- options included): the same command again within the window (a user retrying a command
-- already answered) is told that game instead of making a second one. Rows older than the
-- window are deleted as new ones are written.
CREATE TABLE recent_commands (
    channel_id INTEGER NOT NULL,
    user_id    INTEGER NOT NULL,
    command    TEXT    NOT NULL,
    game_id    INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    at         REAL    NOT NULL,
    PRIMARY KEY (channel_id, user_id, command)
);

CREATE INDEX recent_commands_at ON recent_commands (at);
