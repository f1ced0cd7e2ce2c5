-- A league may be of any game Paddock runs: each game declares itself (rules/spec.py), so the
-- schema no longer lists them. SQLite cannot drop a CHECK with ALTER TABLE; removing one from
-- the table's text is the documented way ("Making Other Kinds Of Table Schema Changes"), and
-- the migration runner then bumps the schema version so that every connection reloads it.
PRAGMA writable_schema = ON;
UPDATE sqlite_master
SET sql = replace(sql, ' CHECK (game IN (''rf90'', ''waddington'', ''pitformula''))', '')
WHERE type = 'table' AND name = 'leagues';
PRAGMA writable_schema = OFF;
