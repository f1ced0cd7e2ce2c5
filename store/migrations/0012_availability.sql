-- Availability (issue 25 point 5): a league's away allowance and policy, and each person's
-- away periods, quiet hours, time zone and daily digest.

-- Away days a member may take in a season, and what their turns do meanwhile:
-- 'wait' (default: the turn's clock starts when they are back) or 'robot' (the robot decides
-- for them at once). A new season keeps both.
ALTER TABLE leagues ADD COLUMN away_days INTEGER NOT NULL DEFAULT 14;
ALTER TABLE leagues ADD COLUMN away_policy TEXT NOT NULL DEFAULT 'wait';

-- A person's own settings, in their own time zone (NULL: UTC): quiet hours as minutes after
-- midnight (NULL: none), and the daily digest by DM (off by default, at 09:00).
ALTER TABLE user_settings ADD COLUMN timezone TEXT;
ALTER TABLE user_settings ADD COLUMN quiet_from INTEGER;
ALTER TABLE user_settings ADD COLUMN quiet_to INTEGER;
ALTER TABLE user_settings ADD COLUMN digest INTEGER NOT NULL DEFAULT 0;
ALTER TABLE user_settings ADD COLUMN digest_at INTEGER NOT NULL DEFAULT 540;

-- Away periods (epoch seconds; the one whose end is still to come is the current one), and
-- the league seasons each was counted in (the open seasons its person drove in when it was
-- asked for): a season's away days used are its periods' days.
CREATE TABLE away_periods (
    id        INTEGER PRIMARY KEY,
    user_id   INTEGER NOT NULL,
    starts_at REAL    NOT NULL,
    ends_at   REAL    NOT NULL
);
CREATE INDEX away_periods_by_user ON away_periods (user_id, ends_at);

CREATE TABLE away_charges (
    period_id INTEGER NOT NULL REFERENCES away_periods (id) ON DELETE CASCADE,
    league_id INTEGER NOT NULL REFERENCES leagues (id) ON DELETE CASCADE,
    PRIMARY KEY (period_id, league_id)
);
CREATE INDEX away_charges_by_league ON away_charges (league_id);
