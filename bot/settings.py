"""Configuration from the environment and `.env` (pydantic-settings)."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="PADDOCK_", env_file=".env", env_file_encoding="utf-8", extra="ignore"
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


class MissingSetting(SystemExit):
    pass


def require_token(settings: Settings) -> str:
    if settings.token is None or not settings.token.get_secret_value().strip():
        raise MissingSetting(
            "paddock: PADDOCK_TOKEN is not set; put it in .env (see .env.example) or the "
            "environment."
        )
    return settings.token.get_secret_value().strip()
