-- Table settings of a game (host, turn time limit, title...) kept apart from the rules
-- config, which is what replaying the game from its seed needs.
ALTER TABLE games ADD COLUMN settings_json TEXT NOT NULL DEFAULT '{}';
