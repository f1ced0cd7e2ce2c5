"""League standings as text, embed rows and a PNG, shared by the cog, the demo and the bench."""

from __future__ import annotations

from dataclasses import dataclass

from renderer.common import counted
from renderer.standings import StandingsLine, render_standings
from rules.championship import PointsTable, RoundResult, StandingRow, game_kinds, standings
from rules.errors import PaddockError
from store import League, Member, Round, SeasonSheet, Store
from store.errors import in_code, shown


@dataclass
class StandingsReport:
    league: League
    rows: list[StandingRow]
    members: dict[str, Member]
    lines: list[StandingsLine]
    rounds_done: int
    rounds_total: int
    results: list[RoundResult]  # of the drivers in the table, as the standings counted them

    def text(self, limit: int = 25) -> str:
        if not self.rows:
            return "No drivers yet."
        out = []
        for row in self.rows[:limit]:
            pos = f"={row.position}" if row.tied else f"{row.position}"
            name = in_code(self.members[row.member].display_name)  # in a code block
            wins = row.places.get(1, 0)
            out.append(
                f"{pos:>3}. {name[:24]:<24} {row.points:>4} pts"
                + (f"  {counted(wins, 'win')}" if wins else "")
            )
        if len(self.rows) > limit:
            out.append(f"... and {len(self.rows) - limit} more")
        return "\n".join(out)

    def title(self) -> str:
        return f"{self.league.name} - season {self.league.season}"

    def subtitle(self) -> str:
        status = "" if self.league.is_open else " - season closed"
        return (
            f"{game_kinds()[self.league.game]} - points {'-'.join(map(str, self.league.points))}"
            f" - {self.rounds_done}/{self.rounds_total} rounds{status}"
        )

    def png(self) -> bytes:
        return render_standings(self.title(), self.subtitle(), self.lines)


def league_points_table(league: League) -> PointsTable:
    return PointsTable(
        name=league.points_table, title=league.points_table, points=league.points, source="league"
    )


async def standings_report(store: Store, league: League) -> StandingsReport:
    return standings_of(league, (await store.season_sheets([league.id]))[league.id])


def standings_of(league: League, sheet: SeasonSheet) -> StandingsReport:
    """The season's standings from what its sheet holds (no store: a page that shows the
    sheet too, or a career of many seasons, reads each sheet once)."""
    members, results, rounds = sheet.members, sheet.results, sheet.rounds
    with_results = {r.member_id for r in results}
    # Drivers who left stay in the table if they scored results this season.
    shown = [m for m in members if m.active or m.id in with_results]
    by_key = {str(m.id): m for m in shown}
    round_results = [
        RoundResult(round=r.round_number, member=str(r.member_id), place=r.place, status=r.status)
        for r in results
        if str(r.member_id) in by_key
    ]
    rows = standings(list(by_key), round_results, league_points_table(league))
    done = sorted({r.round_number for r in results})
    lines = []
    for row in rows:
        member = by_key[row.member]
        per_round = {r.round: r for r in round_results if r.member == row.member}
        cells = []
        for number in done:
            r = per_round.get(number)
            if r is None or r.place is None:
                cells.append("-" if r is None or r.status == "finished" else "R")
            elif r.status not in ("finished", "running"):
                cells.append("R")
            else:
                cells.append(str(r.place))
        lines.append(
            StandingsLine(
                position=row.position,
                tied=row.tied,
                name=member.display_name,
                colour=member.colour,
                points=row.points,
                wins=row.places.get(1, 0),
                podiums=sum(row.places.get(p, 0) for p in (1, 2, 3)),
                rounds=row.rounds,
                results=cells,
            )
        )
    return StandingsReport(league, rows, by_key, lines, len(done), len(rounds), round_results)


def round_title(found: tuple[League, Round]) -> str:
    """A league race's title: the league, the round's number and venue."""
    league, rnd = found
    return f"{league.name} round {rnd.number}: {rnd.name}"


async def league_round_for_game(
    store: Store,
    guild_id: int,
    league_name: str | None,
    number: int | None,
    kind: str,
    host_id: int,
) -> tuple[League, Round] | None:
    """The open league round a new game of `kind` counts for, or None for a friendly game.

    Refused (PaddockError, nothing changed) when only one of league and round is given, the
    league races another game or its season is closed, the round has a result, or the host
    is not one of its drivers.
    """
    if league_name is None and number is None:
        return None
    if league_name is None or number is None:
        raise PaddockError("Give both `league` and `round` for a league game, or neither.")
    league = await store.get_league(guild_id, league_name)
    if league.game != kind:
        raise PaddockError(
            f"**{shown(league.label)}** is a {game_kinds()[league.game]} league, not "
            f"{game_kinds()[kind]}."
        )
    if not league.is_open:
        raise PaddockError(f"Season {league.season} of **{shown(league.name)}** is closed.")
    rnd = await store.get_round(league, number)
    if rnd.status == "done":
        raise PaddockError(f"Round {number} of **{shown(league.label)}** already has a result.")
    if rnd.opened_at is not None and (race := await store.round_race(rnd.id)) is not None:
        raise PaddockError(
            f"Round {number}'s race opened at its start (#{race}): join it there. A league "
            "admin can cancel it to open another."
        )
    if await store.member_by_user(league.id, host_id) is None:
        raise PaddockError(
            f"Join **{shown(league.label)}** first (`/league join`) to open its games."
        )
    return league, rnd
