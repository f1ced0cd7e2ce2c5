"""Paddock's tools outside the bot: `paddock bench` and `paddock demo`, and what they drive the
bot with (an offline fake Discord, the games' drivers). Shipped in the wheel, so that both
commands run from an install; the test suite uses the same fake Discord and drivers. The bot
itself never imports this package (bot/cli.py does, inside those two commands only)."""
