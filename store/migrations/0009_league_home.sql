-- A league's home: the channel its races open in (threads there), the role its drivers get
-- with /league join (one mention pings a round), the time zone its admins write times in;
-- and each round's start as an instant (epoch seconds), shown as a Discord timestamp.
ALTER TABLE leagues ADD COLUMN channel_id INTEGER;
ALTER TABLE leagues ADD COLUMN role_id INTEGER;
ALTER TABLE leagues ADD COLUMN timezone TEXT NOT NULL DEFAULT 'UTC';
ALTER TABLE league_rounds ADD COLUMN starts_at REAL;
