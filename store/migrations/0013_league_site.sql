-- The league site (issue 26): a league's public pages are off until an admin turns them on
-- (`/league-admin web`). Its address holds an unguessable token; a new one revokes the old.
-- A league's next season takes its token and its switch (the address stays the league's).
ALTER TABLE leagues ADD COLUMN web_token TEXT;
ALTER TABLE leagues ADD COLUMN web_on INTEGER NOT NULL DEFAULT 0;

CREATE UNIQUE INDEX leagues_by_web_token ON leagues (web_token);
