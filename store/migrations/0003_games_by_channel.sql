-- Commands typed in a channel or thread find its running game without scanning every game.
CREATE INDEX games_by_channel ON games (kind, channel_id) WHERE status IN ('lobby', 'running');
CREATE INDEX games_by_thread ON games (kind, thread_id) WHERE status IN ('lobby', 'running');
