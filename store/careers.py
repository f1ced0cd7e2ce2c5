"""The store's careers and ratings, on either database (store.dialect): a season's wrap-up
claimed once, the seasons a driver raced on a server, and finished games' finishing orders
(what ratings are computed from).

A finished game's order is its rules' classification of its final state, worked out the
first time it is asked for and kept in `game_placings` (a finished game never changes), so
ratings read a few small rows a game rather than every final state each time.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Any

from rules.base import get_game
from store.availability import AvailabilityStore
from store.dialect import Tx, now
from store.leagues import RESULTS, RESULTS_ORDER
from store.models import FinishedPlacing, League, Member, ResultRecord, SeasonSheet

log = logging.getLogger("paddock.store")


class CareerStore(AvailabilityStore):
    async def wrap_season(self, league_id: int) -> bool:
        """Claim the season's wrap-up: True for exactly one caller, once the season has a
        result and is closed or has every round of its calendar raced (across processes
        and restarts: the claim is `wrapped_at`, set only where it is NULL)."""
        rows = await self._statement(
            "UPDATE leagues SET wrapped_at = ? WHERE id = ? AND wrapped_at IS NULL"
            " AND (status = 'closed' OR NOT EXISTS (SELECT 1 FROM league_rounds lr"
            " WHERE lr.league_id = leagues.id AND lr.status != 'done'))"
            " AND EXISTS (SELECT 1 FROM round_results r JOIN league_rounds lr"
            " ON lr.id = r.round_id WHERE lr.league_id = leagues.id) RETURNING id",
            now(),
            league_id,
        )
        return bool(rows)

    async def unwrap_season(self, league_id: int) -> None:
        """Give the wrap-up's claim back (it could not be posted anywhere): the season's
        next result or its close claims it again."""
        await self._statement("UPDATE leagues SET wrapped_at = NULL WHERE id = ?", league_id)

    async def driver_leagues(self, guild_id: int, user_id: int) -> list[League]:
        """Every league season on this server the user is or was a member of: by game, then
        name, then season."""
        rows = await self._all(
            "SELECT l.* FROM leagues l JOIN league_members m ON m.league_id = l.id"
            " WHERE l.guild_id = ? AND m.user_id = ?"
            f" ORDER BY l.game, {self.dialect.fold('l.name')}, l.season",
            guild_id,
            user_id,
        )
        return [self._league(r) for r in rows]

    async def season_sheets(self, league_ids: Sequence[int]) -> dict[int, SeasonSheet]:
        """Each season's members, results and calendar, by league id: three queries however
        many seasons (a driver's career reads every season they raced)."""
        ids = list(dict.fromkeys(league_ids))
        if not ids:
            return {}
        marks = ", ".join("?" * len(ids))
        members = await self._all(
            f"SELECT * FROM league_members WHERE league_id IN ({marks}) ORDER BY id", *ids
        )
        results = await self._all(
            f"{RESULTS} WHERE lr.league_id IN ({marks}) {RESULTS_ORDER}", *ids
        )
        rounds = await self._all(
            f"SELECT * FROM league_rounds WHERE league_id IN ({marks}) ORDER BY number", *ids
        )
        sheets = {i: SeasonSheet(members=[], results=[], rounds=[]) for i in ids}
        for row in members:
            sheets[row["league_id"]].members.append(self._member(row))
        for row in results:
            sheets[row["league_id"]].results.append(ResultRecord.model_validate(dict(row)))
        for row in rounds:
            sheets[row["league_id"]].rounds.append(self._round(row))
        return sheets

    async def member_by_id(self, member_id: int) -> Member | None:
        """A league member by their id (of whichever season: the caller checks it)."""
        row = await self._one("SELECT * FROM league_members WHERE id = ?", member_id)
        return self._member(row) if row else None

    async def finished_version(self, guild_id: int) -> tuple[int, int, str]:
        """What changes whenever `finished_placings` may: this server's finished games
        counted, their logs' lengths summed and their last change (a game that finishes is
        the newest; one taken back out of its finish leaves, and finishing again it comes
        back longer and newer). One row, on the index of finished games by server."""
        row = await self._one(
            "SELECT COUNT(*) AS n, COALESCE(SUM(s.seq), 0) AS seqs,"
            " COALESCE(MAX(s.updated_at), '') AS last FROM games g"
            " JOIN game_snapshots s ON s.game_id = g.id"
            " WHERE g.guild_id = ? AND g.status = 'finished'",
            guild_id,
        )
        assert row is not None  # (an aggregate: always one row)
        return int(row["n"]), int(row["seqs"]), str(row["last"])

    async def finished_placings(self, guild_id: int) -> list[FinishedPlacing]:
        """Every seat of every finished game on this server with its place, in the order the
        games finished (their last state's time, then id), each game's seats by place."""
        missing = await self._all(
            "SELECT g.id, g.kind, s.state_json FROM games g"
            " JOIN game_snapshots s ON s.game_id = g.id"
            " WHERE g.guild_id = ? AND g.status = 'finished'"
            " AND NOT EXISTS (SELECT 1 FROM game_placings p WHERE p.game_id = g.id)",
            guild_id,
        )
        rows: list[tuple[int, int, int | None, str]] = []
        if missing:
            # Parsing final states is the rules' work: off the event loop.
            rows = await asyncio.to_thread(_classified, [dict(r) for r in missing])

            async def keep(tx: Tx) -> None:
                # Two processes classifying the same game write the same rows: one is kept.
                await tx.executemany(
                    "INSERT INTO game_placings (game_id, seat, place, status)"
                    " VALUES (?, ?, ?, ?) ON CONFLICT (game_id, seat) DO NOTHING",
                    rows,
                )

            if rows and not getattr(self, "read_only", False):
                await self._transact(keep)
        found = await self._all(
            "SELECT g.id AS game_id, g.kind, g.league_id, p.seat, p.place, p.status,"
            " t.user_id, t.robot FROM games g"
            " JOIN game_snapshots s ON s.game_id = g.id"
            " JOIN game_placings p ON p.game_id = g.id"
            " JOIN game_seats t ON t.game_id = g.id AND t.seat = p.seat"
            " WHERE g.guild_id = ? AND g.status = 'finished'"
            " ORDER BY s.updated_at, g.id, p.place IS NULL, p.place, p.seat",
            guild_id,
        )
        placings = [
            FinishedPlacing.model_validate({**dict(r), "robot": bool(r["robot"])}) for r in found
        ]
        if rows and getattr(self, "read_only", False):
            placings = await self._with_unkept(guild_id, placings, rows)
        return placings

    async def _with_unkept(
        self,
        guild_id: int,
        kept: list[FinishedPlacing],
        rows: list[tuple[int, int, int | None, str]],
    ) -> list[FinishedPlacing]:
        """A read-only store (the league site) keeps no classification: those it worked out
        join the kept ones here, in the same order (games as they finished, seats by
        place)."""
        order = await self._all(
            "SELECT g.id, g.league_id, g.kind, t.seat, t.user_id, t.robot FROM games g"
            " JOIN game_snapshots s ON s.game_id = g.id"
            " JOIN game_seats t ON t.game_id = g.id"
            " WHERE g.guild_id = ? AND g.status = 'finished' ORDER BY s.updated_at, g.id",
            guild_id,
        )
        rank: dict[int, int] = {}
        seats: dict[tuple[int, int], Any] = {}
        for r in order:
            rank.setdefault(r["id"], len(rank))
            seats[(r["id"], r["seat"])] = r
        placed = {(g, seat): (place, status) for g, seat, place, status in rows}
        extra = [
            FinishedPlacing(
                game_id=g,
                kind=seats[(g, seat)]["kind"],
                league_id=seats[(g, seat)]["league_id"],
                seat=seat,
                user_id=seats[(g, seat)]["user_id"],
                robot=bool(seats[(g, seat)]["robot"]),
                place=place,
                status=status,
            )
            for (g, seat), (place, status) in placed.items()
            if (g, seat) in seats
        ]
        return sorted(
            kept + extra,
            key=lambda p: (
                rank.get(p.game_id, -1),
                p.place is None,
                p.place or 0,
                p.seat,
            ),
        )


def _classified(games: list[dict[str, Any]]) -> list[tuple[int, int, int | None, str]]:
    """(game, seat, place, status) of each game's classification; a game whose rules are
    not loaded, or whose state they cannot read, is left out (and logged)."""
    out: list[tuple[int, int, int | None, str]] = []
    for g in games:
        try:
            game = get_game(g["kind"])
            placings = game.classification(game.load_state(g["state_json"]))
        except (KeyError, ValueError) as exc:
            log.warning("game %s (%s): no classification for ratings: %s", g["id"], g["kind"], exc)
            continue
        out.extend((g["id"], p.seat, p.place, p.status) for p in placings)
    return out
