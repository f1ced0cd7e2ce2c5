-- The season runner: the bot opens a round's race at its start.
-- leagues.race_settings: the league's race settings (JSON: mode, turn minutes, sign-up
-- window, robots, reminder, per-game choices); league_rounds.settings_json: one round's
-- overrides (an RF90 track, live mode); league_rounds.opened_at: when the bot opened the
-- round's race (set once, in the transaction that makes the game: a round opens once).
-- league_rounds.event_id: the round's Discord scheduled event, if the bot made one.
-- timers.round_id / guild_id: a round's timers (its opening, its reminder), replaced with
-- the round and routed to the shard of the league's guild.
ALTER TABLE leagues ADD COLUMN race_settings TEXT NOT NULL DEFAULT '{}';
ALTER TABLE league_rounds ADD COLUMN settings_json TEXT NOT NULL DEFAULT '{}';
ALTER TABLE league_rounds ADD COLUMN event_id INTEGER;
ALTER TABLE league_rounds ADD COLUMN opened_at REAL;
ALTER TABLE timers ADD COLUMN round_id INTEGER REFERENCES league_rounds (id) ON DELETE CASCADE;
ALTER TABLE timers ADD COLUMN guild_id INTEGER;
CREATE INDEX timers_round ON timers (round_id);
