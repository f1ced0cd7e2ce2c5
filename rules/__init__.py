"""Pure, deterministic game rules. Imports nothing above it (no discord, aiosqlite, Pillow,
asyncio, time or random)."""
