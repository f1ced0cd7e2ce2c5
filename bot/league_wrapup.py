"""A season's wrap-up (issue 25 point 4): the champion, the final standings image, each
driver's figures and the tie-breaks applied, posted once per season when its calendar's last
round gets a result (a league race's finish, `/league-admin record` or `correct`) or the
season is closed. The store's claim (`wrap_season`: a conditional UPDATE) makes it once across
restarts and processes. It goes to the league's home channel, else (none set, or the post
refused) where the last result or the close happened; posted nowhere, the claim is given back
for the season's next result or close. It pings nobody."""

from __future__ import annotations

import io
import logging
from typing import TYPE_CHECKING, Any

import discord

from bot.components import shown
from bot.league_site import league_link
from bot.league_tables import StandingsReport, league_points_table, standings_report
from bot.pages import DESCRIPTION
from renderer.common import counted
from rules.championship import SeasonFigures, TieBreak, season_figures, tie_breaks

if TYPE_CHECKING:
    from bot.client import PaddockBot

log = logging.getLogger("paddock.league")

FIGURE_LINES = 20  # drivers whose figures the embed lists (the image shows every driver)


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st..."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _places(place: int, n: int) -> str:
    if place == 1:
        return counted(n, "win")
    return f"{n} {ordinal(place)} place{'' if n == 1 else 's'}"


def tie_break_line(tie: TieBreak, report: StandingsReport) -> str:
    """One tie-break in words, with the drivers' names."""
    ahead = shown(report.members[tie.ahead].display_name)
    behind = shown(report.members[tie.behind].display_name)
    pts = f"{tie.points} pts each"
    if tie.rule == "countback" and tie.place is not None and tie.counts is not None:
        a, b = tie.counts
        return f"{ahead} ahead of {behind} ({pts}) on countback: {_places(tie.place, a)} to {b}"
    if tie.rule == "earlier" and tie.places is not None:
        a_place, b_place = (ordinal(p) if p else "no place" for p in tie.places)
        return (
            f"{ahead} ahead of {behind} ({pts}) by the earlier result: "
            f"{a_place} to {b_place} in round {tie.round}"
        )
    position = next(r.position for r in report.rows if r.member == tie.ahead)
    return f"{ahead} and {behind} ({pts}) are level on everything: they share {ordinal(position)}"


def figures_line(position: str, name: str, f: SeasonFigures) -> str:
    best = ordinal(f.best) if f.best else "none"
    return (
        f"**{position}** {shown(name)}: {counted(f.races, 'race')}, {counted(f.wins, 'win')}, "
        f"{counted(f.podiums, 'podium')}, {f.points_per_race:.2f} pts/race, best {best}, "
        f"{f.retirements} retired, {f.missed} missed"
    )


def wrapup_embed(report: StandingsReport, link: str | None = None) -> discord.Embed:
    """The wrap-up's text: champion, figures per driver in standings order, tie-breaks;
    with `link`, the league's page on the site (the title's link, and the text's last line,
    never cut)."""
    league = report.league
    table = league_points_table(league)
    champions = [r for r in report.rows if r.position == 1]
    figures = season_figures(list(report.members), report.results, table)
    names = " and ".join(shown(report.members[r.member].display_name) for r in champions)
    lead = champions[0] if champions else None
    crown = (
        f"🏆 Champion{'s' if len(champions) > 1 else ''}: **{names}** with {lead.points} pts"
        f" ({counted(lead.places.get(1, 0), 'win')})."
        if lead is not None
        else "No champion: nobody scored."
    )
    lines = []
    for row in report.rows[:FIGURE_LINES]:
        pos = f"={row.position}" if row.tied else f"{row.position}."
        lines.append(
            figures_line(pos, report.members[row.member].display_name, figures[row.member])
        )
    if len(report.rows) > FIGURE_LINES:
        lines.append(f"... and {len(report.rows) - FIGURE_LINES} more in the image")
    ties = [tie_break_line(t, report) for t in tie_breaks(report.rows, report.results, table)]
    text = "\n".join(
        [
            crown,
            f"{counted(report.rounds_done, 'round')} raced.",
            "",
            *lines,
            *(["", "**Tie-breaks**", *ties] if ties else []),
        ]
    )
    on_the_web = f"\n\n[On the web]({link})" if link else ""
    room = DESCRIPTION - len(on_the_web)
    if len(text) > room:
        text = text[: room - 2] + " …"
    embed = discord.Embed(
        title=f"{shown(league.name)}: season {league.season} wrap-up"[:256],
        description=text + on_the_web,
        colour=discord.Colour.gold(),
        url=link,
    )
    embed.set_footer(text=report.subtitle())
    embed.set_image(url="attachment://standings.png")
    return embed


async def wrap_up(bot: PaddockBot, league_id: int, here: Any) -> bool:
    """Post the season's wrap-up if it is due and nobody posted it yet (True: posted here).
    `here`: where the last result or the close happened, used when the league has no home
    (or its home cannot be reached)."""
    if not await bot.store.wrap_season(league_id):
        return False
    league = await bot.store.league_by_id(league_id)
    report = await standings_report(bot.store, league)
    png = report.png()
    link = await league_link(bot.settings, bot.store, league)
    home = await _home(bot, league.channel_id)
    for channel in dict.fromkeys(c for c in (home, here) if c is not None):
        try:
            await channel.send(
                embed=wrapup_embed(report, link),
                file=discord.File(io.BytesIO(png), filename="standings.png"),
                allowed_mentions=discord.AllowedMentions.none(),
            )
        except discord.HTTPException as exc:
            log.warning("league %s: wrap-up not posted in %s: %s", league_id, channel.id, exc)
            continue
        return True
    # Nowhere it could go: the claim is given back, so that the season's next result or its
    # close (`/league-admin close-season`) posts it; `/league standings` shows the table meanwhile.
    log.warning("league %s: wrap-up not posted anywhere; it will be tried again", league_id)
    await bot.store.unwrap_season(league_id)
    return False


async def _home(bot: PaddockBot, channel_id: int | None) -> Any:
    if channel_id is None:
        return None
    channel = bot.get_channel(channel_id)
    if channel is None:
        try:
            channel = await bot.fetch_channel(channel_id)
        except discord.HTTPException as exc:
            log.warning("league home %s unreachable: %s", channel_id, exc)
            return None
    return channel
