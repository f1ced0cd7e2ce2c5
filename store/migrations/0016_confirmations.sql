-- Confirmations (issue 27 point 3): a decision that cannot be undone and changes a race
-- (retiring, an RF90 pit stop, a Tactic card that throws the dice) asks Confirm first, unless
-- its driver turned that off with `/games confirm:off` (0). On by default.
ALTER TABLE user_settings ADD COLUMN confirmations INTEGER NOT NULL DEFAULT 1;
