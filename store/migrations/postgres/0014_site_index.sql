-- The league site, continued (issue 26): a server's index of its public leagues, and the
-- search engines' opt-in per league.

-- The index's address holds its own unguessable token, made with the server's first public
-- league and switched like a league's (on: shown; off: the address shows nothing, the token
-- kept; a new token revokes the old). It lists only the leagues whose own site is on.
ALTER TABLE guild_settings ADD COLUMN web_index_token TEXT;
ALTER TABLE guild_settings ADD COLUMN web_index_on INTEGER NOT NULL DEFAULT 0;
CREATE UNIQUE INDEX guild_settings_by_web_index_token ON guild_settings (web_index_token);

-- Search engines: a league's pages say noindex unless its admin asks otherwise (1). A new
-- season keeps the choice with the address.
ALTER TABLE leagues ADD COLUMN web_search INTEGER NOT NULL DEFAULT 0;
