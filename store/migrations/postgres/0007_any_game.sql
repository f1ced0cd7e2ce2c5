-- A league may be of any game Paddock runs: each game declares itself (rules/spec.py), so the
-- schema no longer lists them.
ALTER TABLE leagues DROP CONSTRAINT IF EXISTS leagues_game_check;
