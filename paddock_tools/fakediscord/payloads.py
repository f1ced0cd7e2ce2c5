"""Payload factories shared by the in-process driver and the loopback fake server.

Everything here is plain JSON-able dicts shaped like what the real Discord API sends
(gateway READY / GUILD_CREATE / INTERACTION_CREATE, REST message objects, ...).

The :class:`World` describes the fake guild (roles, channels, members) the bot lives in,
and any further guilds (:meth:`World.add_guild`), for a bot with shards.
"""

from __future__ import annotations

import datetime as dt
import itertools
from dataclasses import dataclass, field
from typing import Any

import discord
from discord import app_commands
from discord.enums import AppCommandOptionType

# --------------------------------------------------------------------------- snowflakes

_EPOCH_MS = 1420070400000
_counter = itertools.count(1)


def snowflake() -> int:
    """A fresh, realistic (time based, strictly increasing) snowflake."""
    now_ms = int(dt.datetime.now(dt.UTC).timestamp() * 1000)
    return ((now_ms - _EPOCH_MS) << 22) | (next(_counter) & 0x3FFFFF)


def iso_now() -> str:
    return dt.datetime.now(dt.UTC).isoformat()


def shard_of(guild_id: int | None, shard_count: int) -> int:
    """The shard Discord sends a guild's events to (direct messages: shard 0)."""
    return 0 if guild_id is None else (int(guild_id) >> 22) % shard_count


# --------------------------------------------------------------------------- permissions

P = discord.Permissions

EVERYONE_PERMISSIONS = P(
    view_channel=True,
    send_messages=True,
    send_messages_in_threads=True,
    create_public_threads=True,
    embed_links=True,
    attach_files=True,
    add_reactions=True,
    read_message_history=True,
    use_external_emojis=True,
    use_application_commands=True,
    connect=True,
    speak=True,
    change_nickname=True,
    create_instant_invite=True,
).value

BOT_PERMISSIONS = P.all().value & ~P(administrator=True).value


# --------------------------------------------------------------------------- world model


@dataclass(frozen=True)
class FakeUser:
    """A Discord user (and, when in the world's guild, a member with ``roles``)."""

    id: int
    name: str
    roles: tuple[int, ...] = ()
    global_name: str | None = None
    bot: bool = False
    nick: str | None = None

    def user_payload(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(self.id),
            "username": self.name,
            "global_name": self.global_name if self.global_name is not None else self.name,
            "discriminator": "0",
            "avatar": None,
            "public_flags": 0,
            "flags": 0,
            "primary_guild": None,
            "avatar_decoration_data": None,
            "collectibles": None,
        }
        if self.bot:
            data["bot"] = True
        return data


@dataclass(frozen=True)
class Attachment:
    """An attachment a user uploads as an ``attachment`` slash-command option."""

    filename: str
    data: bytes
    content_type: str = "application/octet-stream"


GUILD_ID = 1100000000000000001
ROLE_STEWARD_ID = 1100000000000000011
ROLE_ADMIN_ID = 1100000000000000012
ROLE_BOT_ID = 1100000000000000013
GENERAL_CHANNEL_ID = 1100000000000000021
RACES_CHANNEL_ID = 1100000000000000022
CATEGORY_ID = 1100000000000000020
APPLICATION_ID = 1100000000000000099

BOT_USER = FakeUser(APPLICATION_ID, "Paddock", roles=(ROLE_BOT_ID,), bot=True)
OWNER = FakeUser(1100000000000000031, "owner")
ALICE = FakeUser(1100000000000000032, "alice", roles=(ROLE_STEWARD_ID,))  # has Manage Server
BOB = FakeUser(1100000000000000033, "bob")  # plain member
CAROL = FakeUser(1100000000000000034, "carol", roles=(ROLE_ADMIN_ID,))  # administrator


def role_payload(
    role_id: int, name: str, permissions: int, *, position: int = 0, managed: bool = False
) -> dict[str, Any]:
    return {
        "id": str(role_id),
        "name": name,
        "color": 0,
        "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
        "hoist": False,
        "icon": None,
        "unicode_emoji": None,
        "position": position,
        "permissions": str(permissions),
        "managed": managed,
        "mentionable": False,
        "flags": 0,
    }


def text_channel_payload(
    channel_id: int,
    name: str,
    *,
    guild_id: int = GUILD_ID,
    parent_id: int | None = None,
    position=0,
) -> dict[str, Any]:
    return {
        "id": str(channel_id),
        "type": 0,
        "guild_id": str(guild_id),
        "name": name,
        "position": position,
        "permission_overwrites": [],
        "nsfw": False,
        "topic": None,
        "last_message_id": None,
        "rate_limit_per_user": 0,
        "parent_id": str(parent_id) if parent_id else None,
        "flags": 0,
    }


@dataclass
class World:
    """The fake Discord universe: the bot's identity and one guild (``guild_id``), plus any
    guilds added with :meth:`add_guild` (same roles and members, channels of their own)."""

    application_id: int = APPLICATION_ID
    bot_user: FakeUser = BOT_USER
    guild_id: int = GUILD_ID
    guild_name: str = "Paddock Test Guild"
    owner_id: int = OWNER.id
    roles: dict[int, dict[str, Any]] = field(default_factory=dict)
    channels: dict[int, dict[str, Any]] = field(default_factory=dict)
    users: dict[int, FakeUser] = field(default_factory=dict)
    default_channel_id: int = GENERAL_CHANNEL_ID
    locale: str = "en-US"
    # permissions taken from the bot per channel (its threads follow it): Backend.revoke
    revoked: dict[int, int] = field(default_factory=dict)
    thread_parents: dict[int, int] = field(default_factory=dict)  # thread id -> channel id
    other_guilds: dict[int, str] = field(default_factory=dict)  # guild id -> name (add_guild)

    @classmethod
    def default(cls) -> World:
        w = cls()
        w.add_role(role_payload(w.guild_id, "@everyone", EVERYONE_PERMISSIONS))
        w.add_role(role_payload(ROLE_STEWARD_ID, "Steward", P(manage_guild=True).value, position=1))
        w.add_role(role_payload(ROLE_ADMIN_ID, "Admin", P(administrator=True).value, position=2))
        w.add_role(role_payload(ROLE_BOT_ID, "Paddock", BOT_PERMISSIONS, position=3, managed=True))
        w.add_channel(
            {
                "id": str(CATEGORY_ID),
                "type": 4,
                "guild_id": str(w.guild_id),
                "name": "Racing",
                "position": 0,
                "permission_overwrites": [],
                "nsfw": False,
                "parent_id": None,
                "flags": 0,
            }
        )
        w.add_channel(text_channel_payload(GENERAL_CHANNEL_ID, "general", position=0))
        w.add_channel(text_channel_payload(RACES_CHANNEL_ID, "races", parent_id=CATEGORY_ID))
        for user in (w.bot_user, OWNER, ALICE, BOB, CAROL):
            w.add_user(user)
        return w

    # -- mutation helpers
    def add_role(self, payload: dict[str, Any]) -> None:
        self.roles[int(payload["id"])] = payload

    def add_channel(self, payload: dict[str, Any]) -> None:
        payload.setdefault("guild_id", str(self.guild_id))
        self.channels[int(payload["id"])] = payload

    def add_user(self, user: FakeUser) -> FakeUser:
        self.users[user.id] = user
        return user

    def add_guild(self, guild_id: int, name: str, *, channels: dict[int, str]) -> None:
        """Another guild the bot is in: the members and roles of the world's guild (its own
        @everyone), and text ``channels`` (id -> name) of its own; the first is its default.
        Interactions and messages in those channels carry this guild's id."""
        if guild_id == self.guild_id or guild_id in self.other_guilds:
            raise ValueError(f"guild {guild_id} is already in the world")
        self.other_guilds[guild_id] = name
        for channel_id, channel_name in channels.items():
            self.add_channel(text_channel_payload(channel_id, channel_name, guild_id=guild_id))

    # -- lookups
    @property
    def guild_ids(self) -> list[int]:
        """Every guild of the world, its own first."""
        return [self.guild_id, *self.other_guilds]

    def guilds_on_shard(self, shard_id: int, shard_count: int) -> list[int]:
        return [g for g in self.guild_ids if shard_of(g, shard_count) == shard_id]

    def guild_of(self, channel_id: int | None) -> int:
        """The guild of a channel or thread (the world's guild for one it does not know)."""
        if channel_id is None:
            return self.guild_id
        channel_id = int(channel_id)
        channel_id = self.thread_parents.get(channel_id, channel_id)
        channel = self.channels.get(channel_id)
        if channel is None or channel.get("guild_id") is None:
            return self.guild_id
        return int(channel["guild_id"])

    def roles_of(self, guild_id: int) -> list[dict[str, Any]]:
        """The world's roles as the guild ``guild_id`` has them (its own @everyone)."""
        roles = []
        for role in self.roles.values():
            if int(role["id"]) == self.guild_id and guild_id != self.guild_id:
                role = {**role, "id": str(guild_id)}
            roles.append(role)
        return roles

    def channels_of(self, guild_id: int) -> list[dict[str, Any]]:
        return [c for c in self.channels.values() if self.guild_of(int(c["id"])) == guild_id]

    def user(self, user: FakeUser | int) -> FakeUser:
        if isinstance(user, FakeUser):
            return user
        return self.users[int(user)]

    def channel(self, channel_id: int | None = None) -> dict[str, Any]:
        return self.channels[int(channel_id or self.default_channel_id)]

    def permissions_for(self, user: FakeUser | int) -> int:
        """Guild-level permissions (no channel overwrites are modelled)."""
        user = self.user(user)
        if user.id == self.owner_id:
            return P.all().value
        value = int(self.roles[self.guild_id]["permissions"]) if self.guild_id in self.roles else 0
        for rid in user.roles:
            if rid in self.roles:
                value |= int(self.roles[rid]["permissions"])
        if value & P(administrator=True).value:
            return P.all().value
        return value

    def bot_permissions_in(self, channel_id: int, parent_id: int | None = None) -> int:
        """The bot's permissions in a channel or thread, less those revoked there (or in the
        thread's parent channel)."""
        parent = parent_id or self.thread_parents.get(int(channel_id))
        revoked = self.revoked.get(int(channel_id), 0) | self.revoked.get(parent or 0, 0)
        return BOT_PERMISSIONS & ~revoked

    # -- payloads
    def member_payload(self, user: FakeUser | int, *, with_user: bool = True) -> dict[str, Any]:
        user = self.user(user)
        data: dict[str, Any] = {
            "roles": [str(r) for r in user.roles],
            "nick": user.nick,
            "avatar": None,
            "banner": None,
            "joined_at": "2024-01-01T00:00:00+00:00",
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "pending": False,
            "flags": 0,
            "communication_disabled_until": None,
            "avatar_decoration_data": None,
        }
        if with_user:
            data["user"] = user.user_payload()
        return data

    def ready_payload(
        self,
        *,
        session_id: str = "fake-session",
        resume_url: str = "",
        shard: tuple[int, int] = (0, 1),
    ) -> dict:
        """READY for a session of ``shard`` (id, count): it lists that shard's guilds."""
        guilds = self.guilds_on_shard(*shard)
        return {
            "v": 10,
            "user": {
                **self.bot_user.user_payload(),
                "verified": True,
                "mfa_enabled": False,
                "email": None,
            },
            "application": {"id": str(self.application_id), "flags": 0},
            "guilds": [{"id": str(g), "unavailable": True} for g in guilds],
            "session_id": session_id,
            "session_type": "normal",
            "resume_gateway_url": resume_url or "wss://gateway.invalid",
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "guild_join_requests": [],
            "user_settings": {},
            "geo_ordered_rtc_regions": [],
            "auth_session_id_hash": "",
            "shard": list(shard),
            "_trace": ["fakediscord"],
        }

    def guild_payload(self, guild_id: int | None = None) -> dict[str, Any]:
        guild_id = self.guild_id if guild_id is None else int(guild_id)
        name = self.guild_name if guild_id == self.guild_id else self.other_guilds[guild_id]
        channels = self.channels_of(guild_id)
        default_channel = (
            self.default_channel_id if guild_id == self.guild_id else int(channels[0]["id"])
        )
        members = [self.member_payload(u) for u in self.users.values()]
        return {
            "id": str(guild_id),
            "name": name,
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "banner": None,
            "description": None,
            "owner_id": str(self.owner_id),
            "region": "",
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "roles": self.roles_of(guild_id),
            "emojis": [],
            "stickers": [],
            "features": [],
            "mfa_level": 0,
            "application_id": None,
            "system_channel_id": str(default_channel),
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "vanity_url_code": None,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "preferred_locale": self.locale,
            "public_updates_channel_id": None,
            "max_video_channel_users": 25,
            "nsfw_level": 0,
            "premium_progress_bar_enabled": False,
            "safety_alerts_channel_id": None,
            # GUILD_CREATE extras
            "joined_at": "2024-01-01T00:00:00+00:00",
            "large": False,
            "unavailable": False,
            "member_count": len(members),
            "voice_states": [],
            "members": members,
            "channels": channels,
            "threads": [],
            "presences": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
            "lazy": True,
        }

    def application_payload(self) -> dict[str, Any]:
        return {
            "id": str(self.application_id),
            "name": self.bot_user.name,
            "icon": None,
            "description": "Paddock test application",
            "summary": "",
            "type": None,
            "hook": True,
            "bot_public": True,
            "bot_require_code_grant": False,
            "verify_key": "0" * 64,
            "owner": self.user(self.owner_id).user_payload(),
            "team": None,
            "flags": 0,
            "bot": self.bot_user.user_payload(),
            "rpc_origins": [],
            "tags": [],
            "redirect_uris": [],
            "interactions_endpoint_url": None,
            "role_connections_verification_url": None,
            "approximate_guild_count": len(self.guild_ids),
            "integration_types_config": {"0": {}},
        }


# --------------------------------------------------------------------------- messages


def attachment_payload(
    filename: str, data: bytes, *, url_base: str, content_type: str | None = None
) -> dict[str, Any]:
    aid = snowflake()
    url = f"{url_base.rstrip('/')}/attachments/{aid}/{filename}"
    return {
        "id": str(aid),
        "filename": filename,
        "size": len(data),
        "url": url,
        "proxy_url": url,
        "content_type": content_type or _guess_content_type(filename),
    }


def _guess_content_type(filename: str) -> str:
    lower = filename.lower()
    for ext, ctype in (
        (".png", "image/png"),
        (".jpg", "image/jpeg"),
        (".jpeg", "image/jpeg"),
        (".gif", "image/gif"),
        (".txt", "text/plain; charset=utf-8"),
        (".json", "application/json; charset=utf-8"),
    ):
        if lower.endswith(ext):
            return ctype
    return "application/octet-stream"


def message_payload(
    world: World,
    *,
    channel_id: int,
    body: dict[str, Any] | None = None,
    attachments: list[dict[str, Any]] | None = None,
    author: FakeUser | None = None,
    message_id: int | None = None,
    webhook_id: int | None = None,
    interaction: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A message object as Discord returns it, built from a create-message request body."""
    body = body or {}
    author = author or world.bot_user
    msg: dict[str, Any] = {
        "id": str(message_id or snowflake()),
        "type": 20 if interaction else 0,
        "channel_id": str(channel_id),
        "author": author.user_payload(),
        "content": body.get("content") or "",
        "timestamp": iso_now(),
        "edited_timestamp": None,
        "tts": bool(body.get("tts", False)),
        "mention_everyone": False,
        "mentions": [],
        "mention_roles": [],
        "attachments": attachments or [],
        "embeds": body.get("embeds") or [],
        "components": body.get("components") or [],
        "pinned": False,
        "flags": int(body.get("flags") or 0),
        "nonce": body.get("nonce"),
    }
    if channel_id in world.channels:
        msg["guild_id"] = str(world.guild_of(channel_id))
    if webhook_id is not None:
        msg["webhook_id"] = str(webhook_id)
        msg["application_id"] = str(world.application_id)
    if interaction is not None:
        msg["interaction_metadata"] = interaction
    if "poll" in body:
        msg["poll"] = body["poll"]
    return msg


def apply_message_edit(message: dict[str, Any], body: dict[str, Any], new_attachments=None) -> None:
    """Apply a PATCH (edit message) body onto a stored message object, in place."""
    for key in ("content", "embeds", "components", "flags", "poll"):
        if key in body:
            value = body[key]
            if key == "content":
                value = value or ""
            elif key in ("embeds", "components"):
                value = value or []
            elif key == "flags":
                # the ephemeral / loading bits cannot be changed by an edit
                value = (int(value or 0) & ~(64 | 128)) | (int(message.get("flags", 0)) & 64)
            message[key] = value
    if "attachments" in body:
        keep_ids = {str(a.get("id")) for a in body["attachments"] or []}
        kept = [a for a in message.get("attachments", []) if str(a["id"]) in keep_ids]
        message["attachments"] = kept + list(new_attachments or [])
    elif new_attachments:
        message["attachments"] = message.get("attachments", []) + list(new_attachments)
    message["flags"] = int(message.get("flags", 0)) & ~128  # no longer "loading"
    message["edited_timestamp"] = iso_now()


def thread_payload(
    world: World,
    *,
    parent_id: int,
    name: str,
    owner_id: int | None = None,
    thread_id: int | None = None,
    type_: int = 11,
    auto_archive_duration: int = 1440,
) -> dict[str, Any]:
    return {
        "id": str(thread_id or snowflake()),
        "type": type_,
        "guild_id": str(world.guild_of(parent_id)),
        "parent_id": str(parent_id),
        "owner_id": str(owner_id or world.bot_user.id),
        "name": name,
        "last_message_id": None,
        "rate_limit_per_user": 0,
        "message_count": 0,
        "member_count": 1,
        "flags": 0,
        "total_message_sent": 0,
        "thread_metadata": {
            "archived": False,
            "auto_archive_duration": auto_archive_duration,
            "archive_timestamp": iso_now(),
            "locked": False,
            "invitable": True,
            "create_timestamp": iso_now(),
        },
        "member": {
            "id": str(thread_id or 0),
            "user_id": str(world.bot_user.id),
            "join_timestamp": iso_now(),
            "flags": 0,
        },
    }


def interaction_channel_payload(world: World, channel_id: int) -> dict[str, Any]:
    ch = dict(world.channels.get(channel_id) or text_channel_payload(channel_id, "unknown"))
    ch["permissions"] = str(world.bot_permissions_in(channel_id))
    return ch


# --------------------------------------------------------------------------- interactions


def _interaction_base(
    world: World,
    *,
    type_: int,
    user: FakeUser | int,
    channel_id: int | None,
    permissions: int | None,
    locale: str | None,
    guild: bool = True,
) -> dict[str, Any]:
    user = world.user(user)
    iid = snowflake()
    channel_id = int(channel_id or world.default_channel_id)
    data: dict[str, Any] = {
        "id": str(iid),
        "application_id": str(world.application_id),
        "type": type_,
        "token": f"fake-interaction-token-{iid}",
        "version": 1,
        "locale": locale or world.locale,
        "entitlements": [],
        "entitlement_sku_ids": [],
        "attachment_size_limit": 10 * 1024 * 1024,
        "app_permissions": str(world.bot_permissions_in(channel_id)),
        "channel": interaction_channel_payload(world, channel_id),
        "channel_id": str(channel_id),
    }
    if guild:
        member = world.member_payload(user)
        perms = world.permissions_for(user) if permissions is None else permissions
        member["permissions"] = str(perms)
        guild_id = world.guild_of(channel_id)
        data.update(
            guild_id=str(guild_id),
            guild={"id": str(guild_id), "locale": world.locale, "features": []},
            guild_locale=world.locale,
            member=member,
            authorizing_integration_owners={"0": str(guild_id)},
            context=0,
        )
    else:
        data.update(
            user=user.user_payload(),
            authorizing_integration_owners={"1": str(user.id)},
            context=1,
        )
    return data


def find_app_command(
    tree: app_commands.CommandTree, path: tuple[str, ...], guild_ids: list[int]
) -> tuple[app_commands.Command, int | None]:
    """Resolve ``("league", "create")`` to the Command object and the guild it is registered in
    (None for global commands)."""
    if not path:
        raise ValueError("empty command path")
    root_name, *rest = path
    root = tree.get_command(root_name)
    owner_guild: int | None = None
    if root is None:
        for gid in guild_ids:
            root = tree.get_command(root_name, guild=discord.Object(gid))
            if root is not None:
                owner_guild = gid
                break
    if root is None:
        raise LookupError(f"no app command named {root_name!r} in the tree")
    cmd: Any = root
    for name in rest:
        if not isinstance(cmd, app_commands.Group):
            raise LookupError(f"{cmd.qualified_name!r} has no subcommands")
        sub = cmd.get_command(name)
        if sub is None:
            raise LookupError(f"no subcommand {name!r} in {cmd.qualified_name!r}")
        cmd = sub
    if isinstance(cmd, app_commands.Group):
        raise LookupError(f"{cmd.qualified_name!r} is a group; name a subcommand")
    return cmd, owner_guild


class ResolvedBuilder:
    """Accumulates the ``data.resolved`` section of an application-command interaction."""

    def __init__(self, world: World, url_base: str, attachments_sink: dict[str, bytes]):
        self.world = world
        self.url_base = url_base
        self.sink = attachments_sink
        self.data: dict[str, dict[str, Any]] = {}

    def _add(self, kind: str, key: int | str, value: dict[str, Any]) -> None:
        self.data.setdefault(kind, {})[str(key)] = value

    def user(self, value: Any) -> str:
        user = self.world.user(value if isinstance(value, FakeUser) else int(_id_of(value)))
        self._add("users", user.id, user.user_payload())
        if user.id in self.world.users:
            member = self.world.member_payload(user, with_user=False)
            member["permissions"] = str(self.world.permissions_for(user))
            self._add("members", user.id, member)
        return str(user.id)

    def role(self, value: Any) -> str:
        rid = int(_id_of(value))
        self._add("roles", rid, self.world.roles[rid])
        return str(rid)

    def channel(self, value: Any) -> str:
        cid = int(_id_of(value))
        ch = self.world.channels[cid]
        self._add(
            "channels",
            cid,
            {
                "id": str(cid),
                "name": ch.get("name"),
                "type": ch["type"],
                "permissions": str(P.all().value),
                "parent_id": ch.get("parent_id"),
                "guild_id": str(self.world.guild_of(cid)),
            },
        )
        return str(cid)

    def mentionable(self, value: Any) -> str:
        if isinstance(value, FakeUser) or int(_id_of(value)) in self.world.users:
            return self.user(value)
        return self.role(value)

    def attachment(self, value: Any) -> str:
        if isinstance(value, tuple):
            value = Attachment(*value)
        if not isinstance(value, Attachment):
            raise TypeError("attachment options take fakediscord.Attachment(filename, data)")
        att = attachment_payload(
            value.filename, value.data, url_base=self.url_base, content_type=value.content_type
        )
        self.sink[att["url"]] = value.data
        self._add("attachments", att["id"], att)
        return att["id"]


def _id_of(value: Any) -> int:
    if isinstance(value, int | str):
        return int(value)
    return int(value.id)


def _coerce_option(opt_type: AppCommandOptionType, value: Any, resolved: ResolvedBuilder) -> Any:
    if isinstance(value, app_commands.Choice):
        value = value.value
    if hasattr(value, "value") and not isinstance(value, int | float | str | bool):
        value = value.value  # enums
    t = opt_type
    if t is AppCommandOptionType.string:
        return str(value)
    if t is AppCommandOptionType.integer:
        return int(value)
    if t is AppCommandOptionType.number:
        return float(value)
    if t is AppCommandOptionType.boolean:
        return bool(value)
    if t is AppCommandOptionType.user:
        return resolved.user(value)
    if t is AppCommandOptionType.channel:
        return resolved.channel(value)
    if t is AppCommandOptionType.role:
        return resolved.role(value)
    if t is AppCommandOptionType.mentionable:
        return resolved.mentionable(value)
    if t is AppCommandOptionType.attachment:
        return resolved.attachment(value)
    return value


def command_id_for(name: str) -> int:
    """A stable fake id for a root command name."""
    return 1200000000000000000 + (sum(map(ord, name)) * 7919 + len(name)) % 10**15


def slash_payload(
    world: World,
    tree: app_commands.CommandTree,
    path: tuple[str, ...],
    options: dict[str, Any],
    *,
    user: FakeUser | int,
    channel_id: int | None = None,
    permissions: int | None = None,
    locale: str | None = None,
    url_base: str = "https://cdn.fakediscord.invalid",
    attachments_sink: dict[str, bytes] | None = None,
    focused: str | None = None,
) -> dict[str, Any]:
    """An INTERACTION_CREATE payload for ``/path... option=value`` (type 2), or an
    autocomplete (type 4) when ``focused`` names the option being typed."""
    command, owner_guild = find_app_command(tree, path, [world.guild_id])
    resolved = ResolvedBuilder(
        world, url_base, attachments_sink if attachments_sink is not None else {}
    )
    params = {p.name: p for p in command._params.values()}
    by_display = {p.display_name: p for p in command._params.values()}
    leaf_options: list[dict[str, Any]] = []
    for key, value in options.items():
        param = params.get(key) or by_display.get(key)
        if param is None:
            raise LookupError(f"/{' '.join(path)} has no option {key!r} (has {sorted(by_display)})")
        if value is None:
            continue
        opt: dict[str, Any] = {"name": param.display_name, "type": param.type.value}
        if focused is not None and key == focused:
            opt["value"] = str(value)
            opt["focused"] = True
        else:
            opt["value"] = _coerce_option(param.type, value, resolved)
        leaf_options.append(opt)

    nested: list[dict[str, Any]] = leaf_options
    # wrap into subcommand (type 1) / subcommand group (type 2) layers, innermost first
    for depth, name in reversed(list(enumerate(path))):
        if depth == 0:
            break
        nested = [{"type": 1 if depth == len(path) - 1 else 2, "name": name, "options": nested}]

    data: dict[str, Any] = {
        "id": str(command_id_for(path[0])),
        "name": path[0],
        "type": 1,
        "options": nested,
    }
    if owner_guild is not None:
        data["guild_id"] = str(owner_guild)
    if resolved.data:
        data["resolved"] = resolved.data
    payload = _interaction_base(
        world,
        type_=4 if focused is not None else 2,
        user=user,
        channel_id=channel_id,
        permissions=permissions,
        locale=locale,
    )
    payload["data"] = data
    return payload


def component_payload(
    world: World,
    custom_id: str,
    *,
    message: dict[str, Any],
    user: FakeUser | int,
    component_type: int = 2,
    values: list[str] | None = None,
    permissions: int | None = None,
    locale: str | None = None,
) -> dict[str, Any]:
    """An INTERACTION_CREATE payload for clicking a button (type 3, component_type 2) or
    choosing from a string select (component_type 3, ``values``)."""
    payload = _interaction_base(
        world,
        type_=3,
        user=user,
        channel_id=int(message["channel_id"]),
        permissions=permissions,
        locale=locale,
    )
    data: dict[str, Any] = {"custom_id": custom_id, "component_type": component_type}
    if values is not None:
        data["values"] = list(values)
    payload["data"] = data
    payload["message"] = message
    return payload


def gateway_dispatch(event: str, data: dict[str, Any], seq: int) -> dict[str, Any]:
    return {"op": 0, "t": event, "s": seq, "d": data}
