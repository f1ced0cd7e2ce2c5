"""Configuration from the environment and `.env` (pydantic-settings)."""

from __future__ import annotations

import ipaddress
from pathlib import Path
from typing import Any, Self

from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from bot.drawing import DEFAULT_PROCESSES
from store.models import Shards

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


def parse_addresses(text: str) -> frozenset[IPAddress]:
    """`10.0.0.1, ::1` as addresses; ValueError names a bad one."""
    out = set()
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        try:
            out.add(ipaddress.ip_address(part))
        except ValueError:
            raise ValueError(f"{part!r} is not an IP address") from None
    return frozenset(out)


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="PADDOCK_",
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        # `PADDOCK_DEV_GUILD_ID=` left empty (as in .env.example) means "not set".
        env_ignore_empty=True,
    )

    token: SecretStr | None = Field(default=None, description="Discord bot token")
    db_path: Path = Field(default=Path("paddock.db"), description="SQLite database file")
    # Secret: the URL may carry a password. Set, it selects PostgreSQL over db_path.
    database_url: SecretStr | None = Field(
        default=None,
        description="PostgreSQL URL (postgresql://user@host:5432/db); used instead of db_path",
    )
    dev_guild_id: int | None = Field(
        default=None, description="Sync commands to this guild only (instant, for testing)"
    )
    sync_commands: bool = Field(default=True, description="Sync slash commands at start-up")
    message_content: bool = Field(
        default=False, description="Ask for the privileged message-content intent"
    )
    log_level: str = Field(default="INFO")
    # Sharding: unset, one process and one gateway connection, as a small bot needs. Set, the
    # bot is an AutoShardedBot over shard_ids (default: all of them) out of shard_count.
    shard_count: int | None = Field(
        default=None, description="Discord shards of the whole bot, over every process"
    )
    shard_ids: str | None = Field(
        default=None, description="This process's shards: a range and/or list, e.g. 0-3 or 0,2"
    )

    # The league site (web/): served by `paddock run` too when web_port is set, or alone by
    # `paddock web`; web_base_url is the public address its links use.
    web_port: int | None = Field(
        default=None, ge=1, le=65535, description="Serve the league site on this port"
    )
    web_host: str = Field(default="127.0.0.1", description="The address the site listens on")
    web_base_url: str | None = Field(
        default=None,
        description="The site's public address for links (default http://127.0.0.1:PORT)",
    )

    # Behind a reverse proxy every request comes from the proxy: name it here and the rate
    # limit keys on the client it forwarded (X-Forwarded-For), never on what a client wrote.
    web_trusted_proxies: str | None = Field(
        default=None,
        description="Comma-separated IPs of the reverse proxies in front of the site",
    )

    @field_validator("web_trusted_proxies", mode="before")
    @classmethod
    def _proxies(cls, value: Any) -> Any:
        if isinstance(value, str):
            parse_addresses(value)  # a bad address stops the start, named
            return value.strip() or None
        return value

    @property
    def trusted_proxies(self) -> frozenset[IPAddress]:
        """PADDOCK_WEB_TRUSTED_PROXIES as addresses (none by default)."""
        return parse_addresses(self.web_trusted_proxies or "")

    @field_validator("web_base_url", mode="before")
    @classmethod
    def _base_url(cls, value: Any) -> Any:
        if isinstance(value, str):
            value = value.strip().rstrip("/")
            if value and not value.startswith(("http://", "https://")):
                raise ValueError(f"{value!r} is not an http:// or https:// address")
        return value or None

    @property
    def web_url(self) -> str | None:
        """The site's public address (no trailing slash), or None when no site is known:
        neither PADDOCK_WEB_BASE_URL nor PADDOCK_WEB_PORT is set."""
        if self.web_base_url:
            return self.web_base_url
        return f"http://127.0.0.1:{self.web_port}" if self.web_port else None

    # Images are drawn in worker processes at a lower priority than the bot (bot/drawing.py).
    image_processes: int = Field(
        default=DEFAULT_PROCESSES,
        ge=0,
        le=32,
        description="Processes drawing images (0: threads of the bot's)",
    )

    # Operators: /healthz and /metrics (bot/ops.py), served while the bot runs when set.
    ops_port: int | None = Field(
        default=None, ge=0, le=65535, description="Port of /healthz and /metrics (0: any free)"
    )
    ops_host: str = Field(
        default="127.0.0.1", description="Address /healthz and /metrics listen on"
    )

    @field_validator("shard_count", "shard_ids", "web_port", "ops_port", mode="before")
    @classmethod
    def _empty_is_unset(cls, value: Any) -> Any:
        # `PADDOCK_SHARD_IDS=` in .env means "not set", not an error.
        return None if isinstance(value, str) and not value.strip() else value

    @model_validator(mode="after")
    def _check_shards(self) -> Self:
        self.shards  # noqa: B018 - parse now: a bad setting stops the start, in one line
        return self

    @property
    def shards(self) -> Shards | None:
        """This process's shards, or None for an unsharded bot."""
        if self.shard_count is None:
            if self.shard_ids is not None:
                raise ValueError("PADDOCK_SHARD_IDS needs PADDOCK_SHARD_COUNT (the total)")
            return None
        if self.shard_count < 1:
            raise ValueError(f"PADDOCK_SHARD_COUNT must be 1 or more, not {self.shard_count}")
        if self.shard_ids is None:
            return Shards(count=self.shard_count, ids=tuple(range(self.shard_count)))
        return Shards(count=self.shard_count, ids=parse_shard_ids(self.shard_ids, self.shard_count))


def parse_shard_ids(text: str, count: int) -> tuple[int, ...]:
    """`0-3`, `0,2`, `0-1,4`: the shard ids, sorted, each once and below `count`."""
    ids: list[int] = []
    for part in text.replace(" ", "").split(","):
        first, dash, last = part.partition("-")
        try:
            low = int(first)
            high = int(last) if dash else low
        except ValueError:
            raise ValueError(
                f"PADDOCK_SHARD_IDS={text!r}: {part!r} is not a shard id or a range like 0-3"
            ) from None
        if low < 0 or high < low:
            raise ValueError(f"PADDOCK_SHARD_IDS={text!r}: {part!r} is not a valid range")
        if high >= count:
            raise ValueError(
                f"PADDOCK_SHARD_IDS={text!r}: shard {high} is out of range; with "
                f"PADDOCK_SHARD_COUNT={count} the ids are 0-{count - 1}"
            )
        for shard in range(low, high + 1):
            if shard in ids:
                raise ValueError(f"PADDOCK_SHARD_IDS={text!r}: shard {shard} is named twice")
            ids.append(shard)
    return tuple(sorted(ids))


class MissingSetting(SystemExit):
    pass


def load_settings(**values: Any) -> Settings:
    """Settings from the environment and .env; a bad value stops with one line per problem
    naming the variable (not pydantic's report), as `MissingSetting`."""
    try:
        return Settings(**values)
    except ValidationError as exc:
        lines = []
        for error in exc.errors():
            where = "_".join(str(part) for part in error["loc"]).upper()
            message = str(error["msg"]).removeprefix("Value error, ")
            lines.append(f"paddock: {'PADDOCK_' + where + ': ' if where else ''}{message}")
        raise MissingSetting("\n".join(lines)) from None


def require_token(settings: Settings) -> str:
    if settings.token is None or not settings.token.get_secret_value().strip():
        raise MissingSetting(
            "paddock: PADDOCK_TOKEN is not set; put it in .env (see .env.example) or the "
            "environment."
        )
    return settings.token.get_secret_value().strip()
