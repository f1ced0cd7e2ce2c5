-- Paddock schema, first version.
-- Games are an append-only action log plus a state snapshot updated in the same transaction.

CREATE TABLE guild_settings (
    guild_id      INTEGER PRIMARY KEY,
    admin_role_id INTEGER
);

CREATE TABLE leagues (
    id           INTEGER PRIMARY KEY,
    guild_id     INTEGER NOT NULL,
    name         TEXT    NOT NULL,
    game         TEXT    NOT NULL CHECK (game IN ('rf90', 'waddington', 'pitformula')),
    season       INTEGER NOT NULL DEFAULT 1 CHECK (season >= 1),
    points_table TEXT    NOT NULL,
    points_json  TEXT    NOT NULL,
    status       TEXT    NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'closed')),
    created_by   INTEGER,
    created_at   TEXT    NOT NULL,
    closed_at    TEXT,
    UNIQUE (guild_id, name COLLATE NOCASE, season)
);

CREATE TABLE league_members (
    id           INTEGER PRIMARY KEY,
    league_id    INTEGER NOT NULL REFERENCES leagues (id) ON DELETE CASCADE,
    user_id      INTEGER NOT NULL,
    display_name TEXT    NOT NULL,
    colour       TEXT,
    active       INTEGER NOT NULL DEFAULT 1,
    joined_at    TEXT    NOT NULL,
    UNIQUE (league_id, user_id)
);

CREATE TABLE league_rounds (
    id        INTEGER PRIMARY KEY,
    league_id INTEGER NOT NULL REFERENCES leagues (id) ON DELETE CASCADE,
    number    INTEGER NOT NULL CHECK (number >= 1),
    name      TEXT    NOT NULL,
    scheduled TEXT,
    status    TEXT    NOT NULL DEFAULT 'scheduled' CHECK (status IN ('scheduled', 'done')),
    UNIQUE (league_id, number)
);

CREATE TABLE round_results (
    round_id    INTEGER NOT NULL REFERENCES league_rounds (id) ON DELETE CASCADE,
    member_id   INTEGER NOT NULL REFERENCES league_members (id) ON DELETE CASCADE,
    place       INTEGER CHECK (place IS NULL OR place >= 1),
    status      TEXT    NOT NULL DEFAULT 'finished',
    source      TEXT    NOT NULL CHECK (source IN ('game', 'manual', 'correction')),
    game_id     INTEGER REFERENCES games (id),
    recorded_at TEXT    NOT NULL,
    PRIMARY KEY (round_id, member_id)
);

CREATE TABLE games (
    id                INTEGER PRIMARY KEY,
    kind              TEXT    NOT NULL,
    guild_id          INTEGER,
    channel_id        INTEGER,
    thread_id         INTEGER,
    status_message_id INTEGER,
    league_id         INTEGER REFERENCES leagues (id),
    round_id          INTEGER REFERENCES league_rounds (id),
    seed              INTEGER NOT NULL,
    config_json       TEXT    NOT NULL DEFAULT '{}',
    status            TEXT    NOT NULL DEFAULT 'running'
                      CHECK (status IN ('lobby', 'running', 'finished', 'abandoned')),
    results_recorded  INTEGER NOT NULL DEFAULT 0,
    created_at        TEXT    NOT NULL,
    updated_at        TEXT    NOT NULL
);

CREATE INDEX games_unfinished ON games (status) WHERE status IN ('lobby', 'running');

CREATE TABLE game_seats (
    game_id INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seat    INTEGER NOT NULL CHECK (seat >= 0),
    user_id INTEGER,
    name    TEXT    NOT NULL,
    robot   INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (game_id, seat)
);

CREATE TABLE game_actions (
    game_id     INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seq         INTEGER NOT NULL CHECK (seq >= 1),
    actor       TEXT    NOT NULL,
    by_robot    INTEGER NOT NULL DEFAULT 0,
    action_json TEXT    NOT NULL,
    created_at  TEXT    NOT NULL,
    PRIMARY KEY (game_id, seq)
);

CREATE TABLE game_snapshots (
    game_id    INTEGER PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
    seq        INTEGER NOT NULL CHECK (seq >= 0),
    state_json TEXT    NOT NULL,
    updated_at TEXT    NOT NULL
);

CREATE TABLE timers (
    id           INTEGER PRIMARY KEY,
    event        TEXT    NOT NULL,
    due_at       REAL    NOT NULL,
    game_id      INTEGER REFERENCES games (id) ON DELETE CASCADE,
    payload_json TEXT    NOT NULL DEFAULT '{}',
    created_at   TEXT    NOT NULL
);

CREATE INDEX timers_due ON timers (due_at);
