"""`/help`: one line per command group, read from the bot's command tree, and where to read
more. Also the players' summaries `/<game> rules` shows: the section of `docs/play/<game>.md`
between `<!-- discord -->` and `<!-- /discord -->`, so the text lives in one place."""

from __future__ import annotations

import functools
import logging
import re
from pathlib import Path
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.limits import EMBED_DESCRIPTION, EMBED_FIELD, MESSAGE

if TYPE_CHECKING:
    from bot.client import PaddockBot

log = logging.getLogger("paddock.help")

# The players' pages: an installed wheel's copy (setup.py puts docs/play/ into the package),
# else the checkout's own docs/play/.
_PLAY_DIRS = (
    Path(__file__).resolve().parents[1] / "docs" / "play",
    Path(__file__).resolve().parents[2] / "docs" / "play",
)
PLAY_DIR = next((d for d in _PLAY_DIRS if d.is_dir()), _PLAY_DIRS[-1])
LEAGUES_PAGE = "leagues"  # the page for /league, /league-admin and /games
DISCORD_SECTION = re.compile(r"<!-- discord -->\n(.*?)\n<!-- /discord -->", re.DOTALL)
# what a summary may take: it must fit a message, not only an embed
MESSAGE_LIMIT = MESSAGE


def play_page(name: str) -> str:
    """Where a player reads more, as a path in the repository."""
    return f"docs/play/{name}.md"


@functools.cache
def discord_summary(kind: str) -> str:
    """The marked section of `docs/play/<kind>.md`: how to play that game in Discord."""
    path = PLAY_DIR / f"{kind}.md"
    try:
        found = DISCORD_SECTION.search(path.read_text(encoding="utf-8"))
    except OSError:
        found = None
    if found is None:  # e.g. a build without docs/play/: still answer, in one line
        log.warning("no Discord summary in %s", path)
        return f"See `{play_page(kind)}` in Paddock's repository."
    return found.group(1).strip()[:MESSAGE_LIMIT]


def rules_embed(title: str, kind: str) -> discord.Embed:
    embed = discord.Embed(title=f"{title} on Discord", description=discord_summary(kind))
    embed.set_footer(text=f"More: {play_page(kind)} · the rules: docs/rules/{kind}.md")
    return embed


class HelpCog(commands.Cog):
    def __init__(self, bot: PaddockBot) -> None:
        self.bot = bot

    def pages(self) -> dict[str, str]:
        """Top-level command name -> its docs/play page name."""
        pages = {p.area: p.kind for p in self.bot.table.presenters.values()}
        return {
            **pages,
            "league": LEAGUES_PAGE,
            "league-admin": LEAGUES_PAGE,
            "games": LEAGUES_PAGE,
        }

    def games(self) -> list[app_commands.Group]:
        """The games' command groups, as the tree has them."""
        areas = {p.area for p in self.bot.table.presenters.values()}
        return [
            c for c in self.top_level() if isinstance(c, app_commands.Group) and c.name in areas
        ]

    def top_level(self) -> list[app_commands.Command | app_commands.Group]:
        return self.bot.tree.get_commands(type=discord.AppCommandType.chat_input)

    def shared(self) -> list[app_commands.Command | app_commands.Group]:
        """The subcommands every game has (the table commands), in the first game's order."""
        games = self.games()
        if not games:
            return []
        names = set.intersection(*({c.name for c in g.commands} for g in games))
        return [c for c in games[0].commands if c.name in names]

    def lines(self) -> list[str]:
        """One line per top-level command of the tree: its description, its subcommands (a
        game's own; those every game has are listed once) and the page to read."""
        pages = self.pages()
        shared = {c.name for c in self.shared()}
        games = {g.name for g in self.games()}
        lines = []
        for command in self.top_level():
            line = f"**/{command.name}**: {command.description}"
            if isinstance(command, app_commands.Group):
                own = [
                    c.name
                    for c in command.commands
                    if command.name not in games or c.name not in shared
                ]
                line += " · " + " ".join(f"`{name}`" for name in own)
            if command.name in pages:
                line += f" · `{play_page(pages[command.name])}`"
            lines.append(line)
        return lines

    @app_commands.command(name="help", description="What Paddock's commands do (only to you)")
    async def help(self, interaction: discord.Interaction) -> None:
        embed = discord.Embed(
            title="Paddock", description="\n".join(self.lines())[:EMBED_DESCRIPTION]
        )
        games = [g.name for g in self.games()]
        shared = self.shared()
        if shared:
            embed.add_field(
                name="Every game (" + ", ".join(f"/{g}" for g in games) + ") also has",
                value="\n".join(f"`{c.name}`: {c.description}" for c in shared)[:EMBED_FIELD],
                inline=False,
            )
        embed.add_field(
            name="How to play",
            value=(
                " · ".join(f"`/{area} rules`" for area in games)
                + ": a turn in chat, the buttons and where your hand is, only to you. "
                "Pages for players: `docs/play/` in Paddock's repository."
            ),
            inline=False,
        )
        await interaction.response.send_message(embed=embed, ephemeral=True)


async def setup(bot: PaddockBot) -> None:
    await bot.add_cog(HelpCog(bot))
