"""Two guilds on two shards, for the tests of bot processes serving one shard each."""

from __future__ import annotations

from paddock_tools.fakediscord import World
from paddock_tools.fakediscord import payloads as pl

# The world's own guild is on shard 1 of 2; a second guild on shard 0.
SHARD1_GUILD = pl.GUILD_ID
SHARD0_GUILD = pl.GUILD_ID + (1 << 22)
SHARD0_CHANNEL = 1100000000000000921


def two_guilds(world: World) -> World:
    world.add_guild(SHARD0_GUILD, "Shard Zero Club", channels={SHARD0_CHANNEL: "paddock"})
    assert pl.shard_of(SHARD0_GUILD, 2) == 0 and pl.shard_of(SHARD1_GUILD, 2) == 1
    return world
