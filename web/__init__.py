"""The league site: a league's standings, calendar, results, drivers and finished races as
small, safe web pages (aiohttp + Jinja2), served by `paddock run` (PADDOCK_WEB_PORT) or
alone by `paddock web`, reading the database read-only. A layer beside bot/: it imports the
rules, the renderer, the store and the bot's pure league helpers (bot/league_tables.py,
bot/league_careers.py), never discord (docs/architecture.md)."""
