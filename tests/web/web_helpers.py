"""A league site's data, filled through the store's API: a league with two seasons (the
first closed), members (one named like a script), a calendar, results by hand and by a
finished Waddington's race, and a private league beside it on the same server; the
server's index of public leagues (made with the first)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rules.base import get_game
from store import League, Seat, SqliteStore

GUILD = 4242
EVIL = "<script>alert(1)</script>"
START = 1_893_456_000.0  # 2030-01-01 00:00 UTC


@dataclass
class Filled:
    path: Path
    league: League  # the latest season, its site on
    first: League  # season 1, closed
    private: League  # another league here, its site off
    game_id: int  # the finished race of season 2's round 1
    member_ids: list[int]  # season 2's members
    user_ids: list[int]  # the drivers' Discord user ids (never on a page)
    index_token: str  # the server's index (made with its first public league)


async def _race(store: SqliteStore, league: League, round_number: int, users: list[int]) -> int:
    """A finished Waddington's race of the league's round: robots' moves for the drivers'
    cars, stored as the bot stores them (log, snapshot, result in one append)."""
    game = get_game("waddington")
    names = [m.display_name for m in await store.members(league.id) if m.user_id in users]
    config = game.simulation_config(players=len(users), laps=1)
    for player, name in zip(config["players"], names, strict=True):
        player.update(name=name, robot=False)
    seed = 7
    state = game.new_game(seed, config)
    first = state.model_dump_json()
    actions = []
    while not game.is_terminal(state):
        seat = game.to_act(state)[0]
        action = game.robot_action(state, seat)
        state, _ = game.apply(state, action)
        actions.append((str(users[seat]), action.model_dump_json(), False))
    rnd = await store.get_round(league, round_number)
    record = await store.create_game(
        "waddington",
        seed,
        config,
        first,
        guild_id=GUILD,
        channel_id=1,
        league_id=league.id,
        round_id=rnd.id,
        seats=[
            Seat(seat=i, user_id=u, name=n, robot=False)
            for i, (u, n) in enumerate(zip(users, names, strict=True))
        ],
    )
    placings = [(users[p.seat], p.place, p.status) for p in game.classification(state)]
    await store.append_actions(
        record.id,
        0,
        actions,
        state.model_dump_json(),
        status="finished",
        results=placings,
    )
    return record.id


async def filled(tmp_path: Path) -> Filled:
    path = tmp_path / "paddock.db"
    store = SqliteStore(path)
    await store.open()
    try:
        users = [310_000_000_000_000_001, 310_000_000_000_000_002, 310_000_000_000_000_003]
        first = await store.create_league(GUILD, "Sunday Cup", "waddington", "w", [10, 8, 6], None)
        for user, name, colour in zip(
            users, ["Ana", "Bo", EVIL], ["red", "blue", None], strict=True
        ):
            await store.join_league(first, user, name, colour)
        one, two, three = await store.members(first.id)
        for n, venue in ((1, "Monza"), (2, "Spa")):
            await store.set_round(first, n, venue, None)
        # All three on 16 points: Bo ahead of the third on countback (a win to none), Ana
        # ahead of Bo by the earlier result (1st to 3rd in round 1).
        await store.record_round(
            first,
            await store.get_round(first, 1),
            [(one.id, 1, "finished"), (three.id, 2, "finished"), (two.id, 3, "finished")],
        )
        await store.record_round(
            first,
            await store.get_round(first, 2),
            [(two.id, 1, "finished"), (three.id, 2, "finished"), (one.id, 3, "retired")],
        )
        first = await store.close_season(first)
        league = await store.create_league(GUILD, "Sunday Cup", "waddington", "w", [10, 8, 6], None)
        await store.set_round(league, 1, "Silverstone", "a Sunday", START)
        await store.set_round(league, 2, "Suzuka", None, START + 7 * 86400)
        await store.set_round(league, 3, "Interlagos", None)
        game_id = await _race(store, league, 1, users[:2])
        members = await store.members(league.id)
        league = await store.set_web(league, "on")
        private = await store.create_league(
            GUILD, "Secret Series", "waddington", "w", [10, 8, 6], None
        )
        await store.join_league(private, users[0], "Ana", None)
        await store.set_round(private, 1, "Hidden Ring", None)
        await store.record_round(
            private,
            await store.get_round(private, 1),
            [((await store.members(private.id))[0].id, 1, "finished")],
        )
        # Public once, then private again: its token exists but shows nothing.
        await store.set_web(private, "on")
        private = await store.set_web(private, "off")
        index = await store.site_index(GUILD)
        assert index.token is not None
        return Filled(
            path, league, first, private, game_id, [m.id for m in members], users, index.token
        )
    finally:
        await store.close()


# Each game's robot race for the site: a short one (its simulation's options), two drivers.
SHORT: dict[str, dict[str, Any]] = {"rf90": {"track": "barcelona"}, "waddington": {"laps": 1}}
RACE_CONFIG: dict[str, dict[str, Any]] = {"rf90": {"race_turns": 3}, "pitformula": {"races": 2}}


@dataclass
class Raced:
    path: Path
    league: League
    game_id: int
    seats: list[str]  # the drivers' names, by seat


async def league_race(tmp_path: Path, kind: str, seed: int) -> Raced:
    """A league of `kind` with its site on and one round raced to the end by the robots
    (every seat a driver's, stored as the bot stores a finished league race)."""
    game = get_game(kind)
    path = tmp_path / f"{kind}.db"
    store = SqliteStore(path)
    await store.open()
    try:
        league = await store.create_league(GUILD, f"{kind} cup", kind, kind[:1], [10, 8], None)
        users = [320_000_000_000_000_001, 320_000_000_000_000_002]
        names = ["Ana", "Bo"]
        for user, name in zip(users, names, strict=True):
            await store.join_league(league, user, name, None)
        await store.set_round(league, 1, "Monza", None)
        config = {
            **game.simulation_config(players=2, **SHORT.get(kind, {})),
            **RACE_CONFIG.get(kind, {}),
        }
        players = config.get("players")  # Pit Formula's is a number: crews are its seats
        if isinstance(players, list):
            for player, name in zip(players, names, strict=True):
                player.update(name=name, robot=False)
        state = game.new_game(seed, config)
        first = state.model_dump_json()
        actions = []
        while not game.is_terminal(state):
            seat = game.to_act(state)[0]
            action = game.robot_action(state, seat)
            state, _ = game.apply(state, action)
            actions.append((str(users[seat]), action.model_dump_json(), False))
        record = await store.create_game(
            kind,
            seed,
            config,
            first,
            guild_id=GUILD,
            channel_id=1,
            league_id=league.id,
            round_id=(await store.get_round(league, 1)).id,
            seats=[
                Seat(seat=i, user_id=u, name=n, robot=False)
                for i, (u, n) in enumerate(zip(users, names, strict=True))
            ],
        )
        placings = [(users[p.seat], p.place, p.status) for p in game.classification(state)]
        await store.append_actions(
            record.id, 0, actions, state.model_dump_json(), status="finished", results=placings
        )
        league = await store.set_web(league, "on")
        return Raced(path, league, record.id, names)
    finally:
        await store.close()
