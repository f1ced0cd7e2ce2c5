"""Guild scheduled events in the fake Discord: Discord's `/guilds/{id}/scheduled-events`
routes (create, read, edit, delete), with Discord's rules that the bot needs Manage Events and
that an external event has an end and a location. (Discord also refuses a start in the past;
the fake does not, since the bot's clock in tests is not the machine's.) Kept apart from the
backend's messages and channels."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord

from . import payloads as pl

if TYPE_CHECKING:
    from paddock_tools.fakediscord.backend import Call
    from paddock_tools.fakediscord.payloads import World

EXTERNAL = 3  # entity_type: somewhere other than a voice or stage channel
GUILD_ONLY = 2  # privacy_level


class ScheduledEvents:
    def __init__(self, world: World) -> None:
        self.world = world
        self.events: dict[int, dict[str, Any]] = {}  # by id: as Discord keeps them
        self.deleted: list[int] = []

    def routes(self) -> list[tuple[str, str, Any]]:
        path = "/guilds/{gid}/scheduled-events"
        return [
            ("GET", path, self._list),
            ("POST", path, self._create),
            ("GET", path + "/{eid}", self._get),
            ("PATCH", path + "/{eid}", self._edit),
            ("DELETE", path + "/{eid}", self._delete),
        ]

    def of_guild(self, guild_id: int) -> list[dict[str, Any]]:
        return [e for e in self.events.values() if int(e["guild_id"]) == guild_id]

    def _allowed(self, gid: str) -> None:
        from .backend import HTTPError  # (backend imports this module)

        allowed = pl.BOT_PERMISSIONS & ~self.world.revoked.get(int(gid), 0)
        if not allowed & discord.Permissions(manage_events=True).value:
            raise HTTPError(403, "Missing Permissions", 50013)

    def _event(self, gid: str, eid: str) -> dict[str, Any]:
        from .backend import HTTPError  # (backend imports this module)

        event = self.events.get(int(eid))
        if event is None or event["guild_id"] != gid:
            raise HTTPError(404, "Unknown Guild Scheduled Event", 10070)
        return event

    def _check(self, event: dict[str, Any]) -> None:
        from .backend import HTTPError  # (backend imports this module)

        if event["entity_type"] == EXTERNAL and not (
            event.get("scheduled_end_time") and (event.get("entity_metadata") or {}).get("location")
        ):
            raise HTTPError(400, "External events need an end time and a location", 50035)

    def _list(self, call: Call, gid: str) -> list[dict[str, Any]]:
        return self.of_guild(int(gid))

    def _get(self, call: Call, gid: str, eid: str) -> dict[str, Any]:
        return self._event(gid, eid)

    def _create(self, call: Call, gid: str) -> dict[str, Any]:
        self._allowed(gid)
        body = dict(call.json or {})
        event = {
            "id": str(pl.snowflake()),
            "guild_id": gid,
            "channel_id": body.get("channel_id"),
            "creator_id": str(self.world.bot_user.id),
            "name": body["name"],
            "description": body.get("description"),
            "scheduled_start_time": body["scheduled_start_time"],
            "scheduled_end_time": body.get("scheduled_end_time"),
            "privacy_level": body.get("privacy_level", GUILD_ONLY),
            "status": 1,  # scheduled
            "entity_type": body["entity_type"],
            "entity_id": None,
            "entity_metadata": body.get("entity_metadata"),
            "user_count": 0,
        }
        self._check(event)
        self.events[int(event["id"])] = event
        return event

    def _edit(self, call: Call, gid: str, eid: str) -> dict[str, Any]:
        self._allowed(gid)
        event = dict(self._event(gid, eid))
        event.update({k: v for k, v in (call.json or {}).items() if k in event})
        self._check(event)
        self.events[int(eid)] = event
        return event

    def _delete(self, call: Call, gid: str, eid: str) -> tuple[int, None]:
        self._allowed(gid)
        self._event(gid, eid)
        del self.events[int(eid)]
        self.deleted.append(int(eid))
        return 204, None
