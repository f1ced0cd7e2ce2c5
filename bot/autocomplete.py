"""Autocomplete for the options several command groups share: `league` (this server's
leagues; of one game where the command races one, open ones where it changes something) and
`round` (that league's rounds: those still to race where a race is opened or a result
recorded, those raced where a result is read or corrected).

Choice names are plain text in Discord's list (no markdown, no mentions), so names go in as
typed; a choice's value is what the command looks up (the league's name, the round's number).
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

import discord
from discord import app_commands

from rules.championship import game_kinds
from rules.errors import PaddockError

if TYPE_CHECKING:
    from bot.client import PaddockBot
    from store import League, Round, Store

MAX_CHOICES = 25  # Discord shows at most 25
MAX_NAME = 100  # characters of a choice's name
# Which rounds an option offers: still to race (no result), raced (a result), or every one
# plus the next free number (the calendar's editor).
Rounds = Literal["to race", "raced", "calendar"]

F = TypeVar("F", bound=Callable[..., Any])
Complete = Callable[[discord.Interaction, str], Coroutine[Any, Any, list[Any]]]


def _store(interaction: discord.Interaction) -> Store:
    return cast("PaddockBot", interaction.client).store


def _fit(text: str) -> str:
    return text if len(text) <= MAX_NAME else text[: MAX_NAME - 1] + "…"


def league_label(league: League, *, game: bool) -> str:
    """A league as its choice reads: its name, season, (game) and whether it is closed."""
    what = f"{game_kinds()[league.game]}, " if game else ""
    closed = ", closed" if not league.is_open else ""
    return _fit(f"{league.name} ({what}season {league.season}{closed})")


async def league_choices(
    interaction: discord.Interaction,
    current: str,
    *,
    game: str | None = None,
    open_only: bool = False,
) -> list[app_commands.Choice[str]]:
    """This server's leagues (their latest season) whose name contains what was typed, those
    starting with it first; only `game`'s leagues if given, only open ones if `open_only`."""
    if interaction.guild is None:
        return []
    typed = str(current or "").casefold().strip()
    leagues = [
        lg
        for lg in await _store(interaction).list_leagues(interaction.guild.id)
        if (game is None or lg.game == game)
        and (lg.is_open or not open_only)
        and typed in lg.name.casefold()
    ]
    leagues.sort(key=lambda lg: not lg.name.casefold().startswith(typed))  # stable: A-Z kept
    return [
        app_commands.Choice(name=league_label(lg, game=game is None), value=lg.name)
        for lg in leagues[:MAX_CHOICES]
    ]


def leagues(game: str | None = None, *, open_only: bool = False) -> Complete:
    """The autocomplete callback of a `league` option (see `league_choices`)."""

    async def complete(
        interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return await league_choices(interaction, current, game=game, open_only=open_only)

    return complete


def round_label(rnd: Round) -> str:
    when = f" · {rnd.scheduled}" if rnd.scheduled else ""
    done = " · raced" if rnd.status == "done" else ""
    return _fit(f"Round {rnd.number}: {rnd.name}{when}{done}")


async def round_choices(
    interaction: discord.Interaction, current: str, which: Rounds
) -> list[app_commands.Choice[int]]:
    """The rounds of the league named in the command's `league` option (none before one is
    given, or for a league that is not here), whose number or name matches what was typed."""
    name = getattr(interaction.namespace, "league", None)
    if interaction.guild is None or not isinstance(name, str) or not name.strip():
        return []
    store = _store(interaction)
    try:
        league = await store.get_league(interaction.guild.id, name)
    except PaddockError:
        return []
    rounds = await store.rounds(league.id)
    if which == "to race":
        rounds = [r for r in rounds if r.status != "done"]
    elif which == "raced":
        rounds = [r for r in rounds if r.status == "done"]
    typed = str(current or "").casefold().strip()
    choices = [
        app_commands.Choice(name=round_label(r), value=r.number)
        for r in rounds
        if str(r.number).startswith(typed) or typed in r.name.casefold()
    ]
    if which == "calendar":
        following = max((r.number for r in rounds), default=0) + 1
        if following <= 99 and str(following).startswith(typed):
            choices.append(
                app_commands.Choice(name=f"Round {following}: a new round", value=following)
            )
    return choices[:MAX_CHOICES]


def rounds(which: Rounds) -> Complete:
    """The autocomplete callback of a `round` option (see `round_choices`)."""

    async def complete(
        interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[int]]:
        return await round_choices(interaction, current, which)

    return complete


def league_option(
    func: F | None = None,
    *,
    game: str | None = None,
    open_only: bool = False,
    rounds_offered: Rounds | None = None,
    round_param: str = "round",
    describe: bool = True,
) -> Any:
    """Decorator for a command with a `league` option: its autocomplete (and, unless
    `describe` is off, the description "League name (start typing to pick one)"); with
    `rounds_offered`, the autocomplete of its round option too."""

    def decorate(command: F) -> F:
        completions: dict[str, Complete] = {"league": leagues(game, open_only=open_only)}
        if rounds_offered is not None:
            completions[round_param] = rounds(rounds_offered)
        command = app_commands.autocomplete(**completions)(command)
        if describe:
            command = app_commands.describe(league="League name (start typing to pick one)")(
                command
            )
        return command

    return decorate(func) if func is not None else decorate
