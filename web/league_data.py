"""What a league's pages show, gathered from the store: its seasons, the standings (with the
tie-breaks applied), the calendar, each round's result, and a driver's career on the server.

Only what is public: display names, places and points; members are named by their member
id in addresses, never by their Discord user id. A driver's career lists only the seasons
of leagues whose own site is on (a private league stays private on every page).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

from bot.league_careers import Ratings, career_seasons, server_ratings
from bot.league_tables import StandingsReport, league_points_table, standings_of
from renderer.common import counted
from rules.championship import CareerTotals, TieBreak, career_totals, game_kinds, tie_breaks
from store import League, Member, Store
from web.cache import Lru

_ASCII_FOLD = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def same_name(a: str, b: str) -> bool:
    """League names compared as the store does: without case, ASCII letters only."""
    return a.translate(_ASCII_FOLD) == b.translate(_ASCII_FOLD)


def ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def utc_iso(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).isoformat().replace("+00:00", "Z")


def utc_text(at: float) -> str:
    """The text a `<time>` shows without JavaScript (the script puts the visitor's own)."""
    return datetime.fromtimestamp(at, UTC).strftime("%a %d %b %Y, %H:%M UTC")


@dataclass
class Row:
    position: str  # "3" or "=3"
    member_id: int
    name: str
    colour: str | None
    points: int
    wins: int
    podiums: int
    rounds: int
    results: list[str]


@dataclass
class ResultLine:
    place: str
    member_id: int
    name: str
    status: str  # "" when finished
    points: int


@dataclass
class CalendarRound:
    number: int
    name: str
    scheduled: str | None
    start_iso: str | None
    start_text: str | None
    done: bool
    results: list[ResultLine] = field(default_factory=list)
    game_id: int | None = None  # the finished league race that gave its result


@dataclass
class LeaguePage:
    league: League  # the season shown
    latest: League  # the league's latest season (its address)
    seasons: list[int]  # every season of the league, newest first
    game: str
    title: str
    subtitle: str
    round_numbers: list[int]  # the rounds in the standings' result columns
    rows: list[Row]
    tie_breaks: list[str]
    calendar: list[CalendarRound]


def seasons_in(leagues: list[League], latest: League) -> list[League]:
    """The league's seasons among `leagues` (its server's): the same name, newest first."""
    return sorted(
        (lg for lg in leagues if same_name(lg.name, latest.name)), key=lambda lg: -lg.season
    )


async def seasons_of(store: Store, latest: League) -> list[League]:
    """Every season of the league (the same name on the same server), newest first."""
    return seasons_in(await store.list_leagues(latest.guild_id, latest_only=False), latest)


def tie_break_text(tie: TieBreak, names: dict[str, str], rows: dict[str, int]) -> str:
    ahead, behind = names[tie.ahead], names[tie.behind]
    pts = f"{tie.points} pts each"
    if tie.rule == "countback" and tie.place is not None and tie.counts is not None:
        a, b = tie.counts
        what = ("win" if tie.place == 1 else f"{ordinal(tie.place)} place") + (
            "" if a == 1 else "s"
        )
        return f"{ahead} ahead of {behind} ({pts}) on countback: {a} {what} to {b}"
    if tie.rule == "earlier" and tie.places is not None:
        a_place, b_place = (ordinal(p) if p else "no place" for p in tie.places)
        return (
            f"{ahead} ahead of {behind} ({pts}) by the earlier result: "
            f"{a_place} to {b_place} in round {tie.round}"
        )
    shared = ordinal(rows[tie.ahead])
    return f"{ahead} and {behind} ({pts}) are level on everything: they share {shared}"


def _rows(report: StandingsReport) -> list[Row]:
    out = []
    for row, line in zip(report.rows, report.lines, strict=True):
        out.append(
            Row(
                position=f"={row.position}" if row.tied else str(row.position),
                member_id=int(row.member),
                name=line.name,
                colour=line.colour,
                points=line.points,
                wins=line.wins,
                podiums=line.podiums,
                rounds=line.rounds,
                results=line.results,
            )
        )
    return out


async def league_page(store: Store, latest: League, shown: League) -> LeaguePage:
    sheet = (await store.season_sheets([shown.id]))[shown.id]
    report = standings_of(shown, sheet)
    rounds, results = sheet.rounds, sheet.results
    members = {m.id: m for m in sheet.members}
    table = league_points_table(shown)
    calendar = []
    for rnd in rounds:
        lines = []
        game_id = None
        for r in results:
            if r.round_id != rnd.id:
                continue
            game_id = game_id or r.game_id
            lines.append(
                ResultLine(
                    place=str(r.place) if r.place else "-",
                    member_id=r.member_id,
                    name=members[r.member_id].display_name,
                    status="" if r.status in ("finished", "running") else r.status,
                    points=table.points_for(r.place),
                )
            )
        calendar.append(
            CalendarRound(
                number=rnd.number,
                name=rnd.name,
                scheduled=rnd.scheduled,
                start_iso=utc_iso(rnd.starts_at) if rnd.starts_at else None,
                start_text=utc_text(rnd.starts_at) if rnd.starts_at else None,
                done=rnd.status == "done",
                results=lines,
                game_id=game_id,
            )
        )
    names = {k: m.display_name for k, m in report.members.items()}
    positions = {r.member: r.position for r in report.rows}
    ties = [
        tie_break_text(t, names, positions) for t in tie_breaks(report.rows, report.results, table)
    ]
    return LeaguePage(
        league=shown,
        latest=latest,
        seasons=[lg.season for lg in await seasons_of(store, latest)],
        game=game_kinds().get(shown.game, shown.game),
        title=report.title(),
        subtitle=report.subtitle(),
        round_numbers=sorted({r.round for r in report.results}),
        rows=_rows(report),
        tie_breaks=ties,
        calendar=calendar,
    )


@dataclass
class CareerRow:
    game: str
    league: str
    season: int
    position: str
    champion: bool
    races: int
    wins: int
    podiums: int
    points: int


@dataclass
class DriverPage:
    name: str
    league: League  # the league whose address the page is under
    totals: list[tuple[str, CareerTotals]]  # (game title, totals)
    seasons: list[CareerRow]
    ratings: list[tuple[str, str]]  # (game title, rating text)


async def find_member(
    store: Store, latest: League, member_id: int, leagues: list[League]
) -> Member | None:
    """A member of one of the league's seasons (`leagues`: its server's, every season)."""
    member = await store.member_by_id(member_id)
    seasons = {lg.id for lg in seasons_in(leagues, latest)}
    return member if member is not None and member.league_id in seasons else None


def public_names(leagues: list[League]) -> set[str]:
    """The names (folded) of the leagues whose site is on, by their latest season's switch
    (`leagues`: the server's, every season, as `list_leagues` orders them: newest first)."""
    latest: dict[str, League] = {}
    for league in leagues:
        latest.setdefault(league.name.translate(_ASCII_FOLD), league)
    return {name for name, league in latest.items() if league.web_on}


async def ratings(store: Store, guild_id: int, cache: Lru[Ratings] | None = None) -> Ratings:
    """The server's ratings (OpenSkill over its whole history: the costly part of a driver's
    page), kept in `cache` by the server and its finished games' version: a race that
    finishes (or is taken back) changes the key, and the old ratings age out."""
    if cache is None:
        return await server_ratings(store, guild_id)
    version = await store.finished_version(guild_id)
    return await cache.get((guild_id, *version), lambda: server_ratings(store, guild_id))


async def driver_page(
    store: Store,
    latest: League,
    member: Member,
    leagues: list[League],
    cache: Lru[Ratings] | None = None,
) -> DriverPage:
    """`leagues`: the server's, every season (`list_leagues`), whose switches say which of
    the driver's seasons the page may list."""
    titles = game_kinds()
    public = public_names(leagues)

    async def on_the_site(league: League) -> bool:
        return league.name.translate(_ASCII_FOLD) in public

    seasons = await career_seasons(store, latest.guild_id, member.user_id, only=on_the_site)
    rated = [
        (titles.get(game, game), f"{r.ordinal:.1f} ({counted(r.races, 'rated race')})")
        for game, by_user in (await ratings(store, latest.guild_id, cache)).items()
        if (r := by_user.get(member.user_id)) is not None
    ]
    return DriverPage(
        name=member.display_name,
        league=latest,
        totals=[(titles.get(t.game, t.game), t) for t in career_totals(seasons)],
        seasons=[
            CareerRow(
                game=titles.get(s.game, s.game),
                league=s.league,
                season=s.season,
                position=ordinal(s.position) if s.position else "-",
                champion=s.champion,
                races=s.races,
                wins=s.wins,
                podiums=s.podiums,
                points=s.points,
            )
            for s in seasons
        ],
        ratings=rated,
    )


@dataclass
class IndexEntry:
    name: str
    game: str
    season: int  # its current (latest) season
    closed: bool
    token: str  # its address


def index_entries(leagues: list[League]) -> list[IndexEntry]:
    """A server's public leagues (their latest seasons) as its index lists them, by name."""
    titles = game_kinds()
    return [
        IndexEntry(
            name=lg.name,
            game=titles.get(lg.game, lg.game),
            season=lg.season,
            closed=not lg.is_open,
            token=str(lg.web_token),
        )
        for lg in sorted(leagues, key=lambda lg: (lg.name.translate(_ASCII_FOLD), lg.id))
    ]
