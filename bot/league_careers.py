"""A driver's career on a server (`/league driver`) and the ratings per game (`/league ratings`,
and the careers' own line): gathered from the store, worked out by the rules
(rules.championship, rules.ratings), drawn by renderer.careers."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass

from bot.league_tables import league_points_table, standings_of
from renderer.careers import CareerBlock, CareerLine, render_career
from renderer.common import counted
from rules.championship import (
    CareerSeason,
    CareerTotals,
    career_totals,
    game_kinds,
    season_figures,
)
from rules.ratings import RacePlaces, Rating, rate
from store import FinishedPlacing, League, Store

Ratings = dict[str, dict[int, Rating]]  # by game, by user


def races_by_game(placings: Iterable[FinishedPlacing]) -> dict[str, list[RacePlaces]]:
    """Each finished game's people in its finishing order, games in the order given (the
    store's: as they finished); robot seats, and seats of nobody, dropped before rating."""
    races: dict[int, tuple[str, RacePlaces]] = {}
    for p in placings:
        race = races.setdefault(p.game_id, (p.kind, []))
        if not p.robot and p.user_id is not None:
            race[1].append((p.user_id, p.place))
    out: dict[str, list[RacePlaces]] = {}
    for kind, people in races.values():
        out.setdefault(kind, []).append(people)
    return out


async def server_ratings(store: Store, guild_id: int) -> Ratings:
    """Every person's rating per game on this server, from every finished race here."""
    by_game = races_by_game(await store.finished_placings(guild_id))
    # OpenSkill is pure Python: a server's whole history is rated off the event loop.
    return await asyncio.to_thread(lambda: {k: rate(races) for k, races in by_game.items()})


async def career_seasons(
    store: Store,
    guild_id: int,
    user_id: int,
    *,
    only: Callable[[League], Awaitable[bool]] | None = None,
) -> list[CareerSeason]:
    """The user's seasons on this server, by game, league and season (`only`: those of
    the leagues it keeps, e.g. the public ones on the site). A title: first in the standings
    of a season that is closed or wrapped up."""
    out = []
    leagues = await store.driver_leagues(guild_id, user_id)
    if only is not None:
        leagues = [league for league in leagues if await only(league)]
    sheets = await store.season_sheets([league.id for league in leagues])
    for league in leagues:
        report = standings_of(league, sheets[league.id])
        member = next(
            (k for k, m in report.members.items() if m.user_id == user_id), None
        )  # (one who left with no result is not in the table)
        row = next((r for r in report.rows if r.member == member), None)
        figures = season_figures(list(report.members), report.results, league_points_table(league))
        f = figures.get(member) if member is not None else None
        over = not league.is_open or league.wrapped_at is not None
        out.append(
            CareerSeason(
                game=league.game,
                league=league.name,
                season=league.season,
                races=f.races if f else 0,
                wins=f.wins if f else 0,
                podiums=f.podiums if f else 0,
                points=f.points if f else 0,
                position=row.position if row is not None and f and f.races else None,
                champion=bool(over and row and row.position == 1 and report.rounds_done),
            )
        )
    return out


@dataclass
class Career:
    name: str
    seasons: list[CareerSeason]
    totals: list[CareerTotals]
    ratings: dict[str, Rating]  # by game: this driver's

    @property
    def races(self) -> int:
        return sum(t.races for t in self.totals)

    def rating_text(self, game: str) -> str:
        r = self.ratings.get(game)
        return (
            f"rating {r.ordinal:.1f} ({counted(r.races, 'race')} rated)" if r else "not rated yet"
        )

    def png(self) -> bytes:
        titles = game_kinds()
        games = [t.game for t in self.totals] + [
            g for g in self.ratings if g not in {t.game for t in self.totals}
        ]
        blocks = []
        for game in games:
            total = next((t for t in self.totals if t.game == game), None)
            blocks.append(
                CareerBlock(
                    title=titles.get(game, game),
                    summary=_summary(total) + f" · {self.rating_text(game)}",
                    lines=[
                        CareerLine(
                            league=s.league,
                            season=s.season,
                            position=s.position,
                            champion=s.champion,
                            races=s.races,
                            wins=s.wins,
                            podiums=s.podiums,
                            points=s.points,
                        )
                        for s in self.seasons
                        if s.game == game
                    ],
                )
            )
        return render_career(self.name, f"Career on this server · {_overall(self)}", blocks)


def _summary(total: CareerTotals | None) -> str:
    if total is None:
        return "no league races"
    return (
        f"{counted(total.titles, 'title')} · {counted(total.races, 'race')} · "
        f"{counted(total.wins, 'win')} · {counted(total.podiums, 'podium')}"
    )


def _overall(career: Career) -> str:
    titles = sum(t.titles for t in career.totals)
    return (
        f"{counted(len(career.seasons), 'season')}, {counted(career.races, 'league race')}, "
        f"{counted(titles, 'title')}"
    )


async def career_of(store: Store, guild_id: int, user_id: int, name: str) -> Career:
    seasons = await career_seasons(store, guild_id, user_id)
    ratings = await server_ratings(store, guild_id)
    mine = {game: by_user[user_id] for game, by_user in ratings.items() if user_id in by_user}
    return Career(name, seasons, career_totals(seasons), mine)
