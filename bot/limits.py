"""Numbers that are neither the games' nor Paddock's choices: Discord's limits, and the
durations the bot counts in. One name each, so that a limit is changed in one place."""

from __future__ import annotations

# Discord's limits, in characters
MESSAGE = 2000  # a message's content
EMBED_DESCRIPTION = 4096
EMBED_FIELD = 1024  # an embed field's value

# Durations, in seconds
MINUTE = 60
HOUR = 3600
DAY = 86400
