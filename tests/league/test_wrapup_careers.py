"""A season's wrap-up, `/league driver` and `/league ratings` (issue 25 points 4 and 5) through
discord.py's real command tree: the wrap-up posted once per season (the last round recorded,
corrected again, the season closed after), where it belongs, pinging nobody; careers that add
up across seasons; ratings from finished races with robots left out."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from paddock_tools.bots import ERIN, make_bot, world
from paddock_tools.fakediscord import (
    ALICE,
    BOB,
    CAROL,
    GENERAL_CHANNEL_ID,
    GUILD_ID,
    RACES_CHANNEL_ID,
    Call,
    Calls,
    FakeUser,
    InProcessDriver,
)
from paddock_tools.fakediscord.backend import _walk_components
from rules.rng import Rng
from store import Seat
from store.race_logs import replay_log
from store.undo import standing
from tests.bot_helpers import dump
from tests.helpers import open_png
from tests.league.league_helpers import confirmed
from tests.toygame.rules import ToyGame, ToyState


@pytest.fixture
async def driver(tmp_path: Path) -> AsyncIterator[InProcessDriver]:
    async with InProcessDriver(make_bot(tmp_path / "bot.db"), world()) as d:
        yield d


def wrapups(calls: list[Call]) -> list[Call]:
    return [
        c
        for c in calls
        if c.is_message and c.embed is not None and "wrap-up" in (c.embed.title or "")
    ]


def mentions(u: FakeUser) -> str:
    return f"<@{u.id}>"


async def cup(d: InProcessDriver, rounds: int, name: str = "Cup", game: str = "waddington") -> None:
    await d.slash("league", "create", name=name, game=game, user=ALICE)
    for user in (ALICE, BOB, CAROL):
        await d.slash("league", "join", league=name, user=user)
    for n in range(1, rounds + 1):
        await d.slash("league-admin", "round-set", league=name, number=n, name=f"R{n}", user=ALICE)


async def dice(d: InProcessDriver) -> None:
    """The toy game's league "Dice": alice and bob, one round ("Park") to race."""
    await d.slash("league", "create", name="Dice", game="toy", user=ALICE)
    for user in (ALICE, BOB):
        await d.slash("league", "join", league="Dice", user=user)
    await d.slash("league-admin", "round-set", league="Dice", number=1, name="Park", user=ALICE)


async def record(
    d: InProcessDriver, rnd: int, *order: FakeUser, retired: str | None = None, league: str = "Cup"
) -> Calls:
    kw: dict[str, Any] = {"retired": retired} if retired else {}
    return await d.slash(
        "league-admin",
        "record",
        league=league,
        round=rnd,
        order=" ".join(mentions(u) for u in order),
        user=ALICE,
        **kw,
    )


async def test_the_last_round_recorded_posts_the_wrap_up_once(driver: InProcessDriver) -> None:
    d = driver
    await cup(d, rounds=2)
    first = await record(d, 1, ALICE, BOB, CAROL)
    assert wrapups(first) == []  # round 2 still to race
    last = await record(d, 2, BOB, ALICE, CAROL, retired=mentions(CAROL))
    (posted,) = wrapups(last)
    # No home: where the last result was recorded; after the command's own answer.
    assert posted.channel_id == GENERAL_CHANNEL_ID
    assert any("recorded" in (c.content or "") for c in last[: last.index(posted)])
    assert posted.body["allowed_mentions"] == {"parse": []}
    embed = posted.embed
    assert embed is not None and embed.description is not None
    assert embed.title == "Cup: season 1 wrap-up"
    # alice and bob: 10 + 8 each, a win and a second each; alice won the earlier round.
    assert embed.description.splitlines() == [
        "🏆 Champion: **alice** with 18 pts (1 win).",
        "2 rounds raced.",
        "",
        "**1.** alice: 2 races, 1 win, 2 podiums, 9.00 pts/race, best 1st, 0 retired, 0 missed",
        "**2.** bob: 2 races, 1 win, 2 podiums, 9.00 pts/race, best 1st, 0 retired, 0 missed",
        "**3.** carol: 2 races, 0 wins, 2 podiums, 6.00 pts/race, best 3rd, 1 retired, 0 missed",
        "",
        "**Tie-breaks**",
        "alice ahead of bob (18 pts each) by the earlier result: 1st to 2nd in round 1",
    ]
    assert embed.image.url == "attachment://standings.png"
    (png,) = posted.files
    assert png.filename == "standings.png" and png.is_png
    assert open_png(png.data).width == 900

    # Corrected again, then closed: no second wrap-up.
    corrected = await d.slash(
        "league-admin", "correct", league="Cup", round=2, driver=CAROL.id, place=4, user=ALICE
    )
    assert "Corrected" in (corrected.content or "") and wrapups(corrected) == []
    closed = await confirmed(d, "league-admin", "close-season", league="Cup")
    assert any("is closed" in (c.content or "") for c in closed)
    assert wrapups(closed) == []
    league = await d.bot.store.get_league(GUILD_ID, "Cup")
    assert league.wrapped_at is not None and not league.is_open


async def test_closing_the_season_wraps_it_up_in_the_league_home(driver: InProcessDriver) -> None:
    d = driver
    await cup(d, rounds=3)
    await d.slash("league-admin", "setup", league="Cup", channel=RACES_CHANNEL_ID, user=ALICE)
    assert wrapups(await record(d, 1, CAROL, BOB)) == []  # two rounds still to race
    closed = await confirmed(d, "league-admin", "close-season", league="Cup")
    (posted,) = wrapups(closed)
    assert posted.channel_id == RACES_CHANNEL_ID  # the home, not where the close was asked
    assert posted.embed is not None and posted.embed.description is not None
    assert posted.embed.description.startswith("🏆 Champion: **carol** with 10 pts (1 win).")
    assert (
        "**3.** alice: 0 races, 0 wins, 0 podiums, 0.00 pts/race, best none, 0 retired, 1 missed"
        in (posted.embed.description)
    )


def refuse_posts(d: InProcessDriver, channel_id: int) -> None:
    """Every message post in `channel_id` refused from now on (the bot lost its rights)."""
    d.backend.fail_next(rf"/channels/{channel_id}/messages$", 403, 50013, method="POST", times=None)


async def test_a_wrap_up_its_home_refuses_goes_where_the_result_was_recorded(
    driver: InProcessDriver,
) -> None:
    d = driver
    await cup(d, rounds=1)
    await d.slash("league-admin", "setup", league="Cup", channel=RACES_CHANNEL_ID, user=ALICE)
    refuse_posts(d, RACES_CHANNEL_ID)
    refused, posted = wrapups(await record(d, 1, BOB, ALICE))
    assert (refused.channel_id, refused.status) == (RACES_CHANNEL_ID, 403)
    assert (posted.channel_id, posted.status) == (GENERAL_CHANNEL_ID, 200)
    assert (await d.bot.store.get_league(GUILD_ID, "Cup")).wrapped_at is not None


async def test_a_wrap_up_that_could_go_nowhere_is_posted_at_the_close(
    driver: InProcessDriver,
) -> None:
    """Refused in the home and where the last result was recorded: not claimed, so the
    season's close posts it (once)."""
    d = driver
    await cup(d, rounds=1)
    await d.slash("league-admin", "setup", league="Cup", channel=RACES_CHANNEL_ID, user=ALICE)
    refuse_posts(d, RACES_CHANNEL_ID)
    refuse_posts(d, GENERAL_CHANNEL_ID)
    recorded = await record(d, 1, BOB, ALICE)
    assert any("recorded" in (c.content or "") for c in recorded)  # the result stands
    assert all(c.status == 403 for c in wrapups(recorded))  # tried, refused
    assert (await d.bot.store.get_league(GUILD_ID, "Cup")).wrapped_at is None
    d.backend.clear_faults()
    closed = await confirmed(d, "league-admin", "close-season", league="Cup")
    (posted,) = wrapups(closed)
    assert posted.channel_id == RACES_CHANNEL_ID and posted.status == 200
    assert posted.embed is not None and posted.embed.description is not None
    assert posted.embed.description.startswith("🏆 Champion: **bob**")
    assert (await d.bot.store.get_league(GUILD_ID, "Cup")).wrapped_at is not None


async def test_a_season_closed_with_no_result_has_no_wrap_up(driver: InProcessDriver) -> None:
    d = driver
    await cup(d, rounds=1)
    closed = await confirmed(d, "league-admin", "close-season", league="Cup")
    assert wrapups(closed) == []
    assert (await d.bot.store.get_league(GUILD_ID, "Cup")).wrapped_at is None


async def test_careers_add_up_across_two_seasons(driver: InProcessDriver) -> None:
    d = driver
    await cup(d, rounds=2)
    await record(d, 1, ALICE, BOB, CAROL)
    await record(d, 2, ALICE, CAROL, BOB)  # wrapped: alice's title
    await confirmed(d, "league-admin", "close-season", league="Cup")
    await d.slash("league", "create", name="Cup", game="waddington", user=ALICE)  # season 2
    for n in (1, 2):
        await d.slash("league-admin", "round-set", league="Cup", number=n, name=f"R{n}", user=ALICE)
    await record(d, 1, BOB, ALICE, retired=mentions(ALICE))  # season 2 goes on: no title yet
    await cup(d, rounds=2, name="Nineties", game="rf90")
    await record(d, 1, CAROL, ALICE, league="Nineties")

    asked = await d.slash("league", "driver", driver=ALICE.id, user=ERIN)
    assert not asked.ephemeral
    answer = asked.last
    assert answer.body["allowed_mentions"] == {"parse": []}
    embed = answer.embed
    assert embed is not None and embed.title == "alice - career"
    fields = {f.name: f.value for f in embed.fields}
    assert fields == {
        "Race! Formula 90": "1 season, 1 race, 0 wins, 1 podium, 0 titles; not rated yet",
        "Waddington's Formula 1": "2 seasons, 3 races, 2 wins, 3 podiums, 1 title; not rated yet",
    }
    assert embed.image.url == "attachment://career.png"
    (png,) = answer.files
    assert png.filename == "career.png" and png.is_png and open_png(png.data).width == 900

    bob = (await d.slash("league", "driver", driver=BOB.id, user=ERIN)).last.embed
    assert bob is not None
    assert {f.name: f.value for f in bob.fields}["Waddington's Formula 1"] == (
        "2 seasons, 3 races, 1 win, 3 podiums, 0 titles; not rated yet"
    )

    # No league race: one line, nothing changed.
    before = await dump(d.bot.store)
    nothing = await d.slash("league", "driver", driver=ERIN.id, user=ERIN)
    assert nothing.content == (
        "erin has no league races on this server yet. `/league list` shows the leagues to join."
    )
    assert await dump(d.bot.store) == before


# Ratings from finished races ---------------------------------------------------------------


@pytest.fixture
async def toy_driver(
    tmp_path: Path, toy_game: ToyGame, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[InProcessDriver]:
    """The bot with the toy game (tests/toygame/) registered, as tests/toygame/ starts it."""
    monkeypatch.setattr("bot.drawing.warm_here", lambda: None)
    async with InProcessDriver(make_bot(tmp_path / "toy.db"), world()) as d:
        yield d


async def finished_toy(d: InProcessDriver, positions: list[int], seats: list[Seat]) -> int:
    state = ToyState(rng=Rng.from_seed(1), positions=positions)
    record = await d.bot.store.create_game(
        "toy",
        1,
        {"players": len(seats)},
        state.model_dump_json(),
        guild_id=GUILD_ID,
        status="finished",
        seats=seats,
    )
    return record.id


async def test_ratings_leave_robots_out(toy_driver: InProcessDriver) -> None:
    d = toy_driver
    await d.slash("league", "create", name="Dice", game="toy", user=ALICE)
    for user in (ALICE, BOB, CAROL):
        await d.slash("league", "join", league="Dice", user=user)
    # A friendly race: the robot won, bob second, alice third. Rated among people: bob 1st.
    await finished_toy(
        d,
        [21, 12, 5],
        [
            Seat(seat=0, user_id=None, name="Robot", robot=True),
            Seat(seat=1, user_id=BOB.id, name="bob", robot=False),
            Seat(seat=2, user_id=ALICE.id, name="alice", robot=False, autopilot=True),
        ],
    )
    ratings = await d.slash("league", "ratings", league="Dice", user=ERIN)
    embed = ratings.last.embed
    assert embed is not None and embed.description is not None
    rows = re.findall(r"^\s*(\d+)\. (\w+)\s+(-?[\d.]+|-)\s+(.*)$", embed.description, re.M)
    # Two people, one race (OpenSkill's Plackett-Luce): 3.437685 and -1.833094.
    assert rows == [
        ("1", "bob", "3.4", "1 race"),
        ("2", "carol", "-", "not rated"),
        ("3", "alice", "-1.8", "1 race"),
    ]
    assert "robots are not rated" in (embed.footer.text or "")
    career = (await d.slash("league", "driver", driver=BOB.id, user=ERIN)).content
    assert career == (
        "bob has no league races on this server yet (friendly races: Toy dice race rating 3.4 "
        "(1 race rated)). `/league list` shows the leagues to join."
    )


def _custom_ids(message: dict[str, Any]) -> list[str]:
    return [
        c["custom_id"]
        for c in _walk_components(message.get("components") or [])
        if "custom_id" in c
    ]


async def toy_race(d: InProcessDriver, league: str, rnd: int) -> tuple[int, list[Call]]:
    """The league round's toy race (tests/toygame/) through the fake Discord, alice and bob
    rolling in turn until the finish: its game id and every call the clicks made."""
    await d.slash("toy", "new", league=league, round=rnd, user=ALICE)
    (lobby,) = [
        m
        for m in d.backend.messages.values()
        if any(c.startswith("pd:toy:") and c.endswith(":join") for c in _custom_ids(m))
    ]
    gid = int(next(c for c in _custom_ids(lobby) if c.endswith(":join")).split(":")[2])
    await d.click(f"pd:toy:{gid}:join", user=BOB)
    await d.click(f"pd:toy:{gid}:start", user=ALICE)
    users = {ALICE.id: ALICE, BOB.id: BOB}
    played: list[Call] = []
    for _ in range(42):  # every roll moves a car on: 21 each at most
        if (await d.bot.store.load_game(gid)).status == "finished":
            break
        (prompt,) = [
            m
            for m in d.backend.messages.values()
            if any(c.startswith(f"pd:toy:{gid}:act:") for c in _custom_ids(m))
        ]
        (user_id,) = {int(u) for u in re.findall(r"<@(\d+)>", prompt["content"])}
        roll = next(c for c in _custom_ids(prompt) if c.startswith(f"pd:toy:{gid}:act:"))
        played += await d.click(roll, user=users[user_id], message_id=int(prompt["id"]))
    return gid, played


def classification(played: list[Call]) -> Call:
    (posted,) = [c for c in played if c.is_message and "League points" in (c.content or "")]
    return posted


async def test_a_league_race_that_ends_the_calendar_wraps_up_in_its_thread(
    toy_driver: InProcessDriver,
) -> None:
    d = toy_driver
    await dice(d)
    gid, played = await toy_race(d, "Dice", 1)
    record = await d.bot.store.load_game(gid)
    assert record.status == "finished"
    (posted,) = wrapups(played)
    assert posted.channel_id == record.thread_id  # no home: the race's thread
    assert posted.embed is not None and posted.embed.description is not None
    winner = (await d.bot.store.results(record.league_id or 0))[0].member_id
    name = next(
        m.display_name for m in await d.bot.store.members(record.league_id or 0) if m.id == winner
    )
    assert posted.embed.description.startswith(f"🏆 Champion: **{name}** with 10 pts (1 win).")
    # No site known to this bot: no link under the classification or in the wrap-up.
    assert "On the web" not in (classification(played).content or "")
    assert posted.embed.url is None and "On the web" not in posted.embed.description
    # The race counts for both careers and ratings: the winner's title, rated above the other.
    winner_user = ALICE if name == "alice" else BOB
    career = (await d.slash("league", "driver", driver=winner_user.id, user=ERIN)).last.embed
    assert career is not None
    (field,) = career.fields
    assert field.value is not None
    assert field.value.startswith("1 season, 1 race, 1 win, 1 podium, 1 title; rating 3.4 (1 race")


async def test_ratings_of_an_unknown_league_are_refused_in_one_line(
    driver: InProcessDriver,
) -> None:
    d = driver
    await cup(d, rounds=1)
    before = await dump(d.bot.store)
    refused = await d.slash("league", "ratings", league="Nope", user=ERIN)
    assert refused.ephemeral
    assert "There is no league called **Nope** on this server" in (refused.content or "")
    assert "\n" not in (refused.content or "").strip()
    assert await dump(d.bot.store) == before


async def test_with_the_site_on_the_classification_and_the_wrap_up_carry_its_links(
    tmp_path: Path, toy_game: ToyGame, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("bot.drawing.warm_here", lambda: None)
    base = "https://league.example"
    async with InProcessDriver(make_bot(tmp_path / "toy.db", web_base_url=base), world()) as d:
        await d.slash("league", "create", name="Dice", game="toy", user=ALICE)
        for user in (ALICE, BOB):
            await d.slash("league", "join", league="Dice", user=user)
        for n in (1, 2):
            await d.slash(
                "league-admin", "round-set", league="Dice", number=n, name=f"R{n}", user=ALICE
            )
        # The site off (the default): a base URL alone gives no link.
        first, played = await toy_race(d, "Dice", 1)
        assert "On the web" not in (classification(played).content or "")
        await d.slash("league-admin", "web", league="Dice", state="on", user=ALICE)
        token = (await d.bot.store.get_league(GUILD_ID, "Dice")).web_token
        second, played = await toy_race(d, "Dice", 2)
        posted = classification(played)
        assert (posted.content or "").endswith(f"\nOn the web: <{base}/l/{token}/race/{second}>")
        assert posted.body["allowed_mentions"] == {"parse": []}
        (wrapped,) = wrapups(played)
        assert wrapped.embed is not None and wrapped.embed.description is not None
        assert wrapped.embed.url == f"{base}/l/{token}"  # the league's home: this season
        assert wrapped.embed.description.endswith(f"\n\n[On the web]({base}/l/{token})")
        assert first != second


async def test_a_finished_league_race_keeps_its_log_as_its_replay_makes_it(
    toy_driver: InProcessDriver,
) -> None:
    """The bot keeps a league race's log in words when it finishes (bot/table/core.py
    `keep_race_log`, store/race_logs.py), for the league site's race page: as its replay
    makes it, at its seq."""
    d = toy_driver
    await dice(d)
    gid, _ = await toy_race(d, "Dice", 1)
    store = d.bot.store
    record = await store.load_game(gid)
    assert record.status == "finished" and record.state_json is not None
    assert await store.race_log(gid, record.seq - 1) is None  # kept at its seq only
    kept = await store.race_log(gid, record.seq)
    assert kept is not None
    actions = standing(await store.actions(gid))
    done = [(a.seq, a.actor, a.action_json) for a in actions]
    assert kept == replay_log("toy", record.seed, record.config, record.state_json, done)
    assert [seq for seq, _, _ in kept.actions] == [a.seq for a in actions]
