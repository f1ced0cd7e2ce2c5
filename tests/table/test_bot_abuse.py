"""Abuse through the fake Discord: mentions typed into names, and forged or malformed
buttons.

Mentions: a league named `<@999> **x** @everyone`, a driver whose display name is
`<@&1> _y_`, a round named after a real-looking user id with `@here`, through the league
commands and a league race (lobby, start, moves, finish, /games, /f1 log): no message may
allow a ping the bot did not mean (`allowed_mentions`: nobody, or the drivers a prompt
addresses), and every name is shown escaped (no mention in it works, its markdown shows as
typed; inside code, only what could end the code is changed).

Forged buttons: 1,000 clicks with custom_ids built from the real pattern's parts (areas,
actions, ids of real games of every kind and status, of another server's game and league, of
a league; huge, negative, empty and padded ids; random arguments) and fully random strings,
from random users, on messages in the game's own thread, another channel or another server.
Each click that is not legal for its user must get a one-line ephemeral refusal (never the
generic error), log no ERROR and leave the database exactly as it was. Clicks that could be
legal (computed from the database as the bot would decide) are not sent.
"""

from __future__ import annotations

import asyncio
import random
import re
import string
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

import paddock_tools.f1_driver as f1_driver
from bot.choices import decode
from bot.components import shown
from bot.errors import UNEXPECTED
from bot.presenter import Loaded
from paddock_tools.bots import DAVE, ERIN, make_bot, world
from paddock_tools.f1_driver import play_one_click, settled, state_of
from paddock_tools.fakediscord import (
    ALICE,
    BOB,
    CAROL,
    GENERAL_CHANNEL_ID,
    RACES_CHANNEL_ID,
    Call,
    Calls,
    InProcessDriver,
)
from paddock_tools.fakediscord import payloads as pl
from rules.base import get_game
from store.models import Seat
from tests.bot_helpers import dump
from tests.league.league_helpers import confirmed

# Names that try to ping or to format -------------------------------------------------------

NOBODY_ID = 1100000000000000777  # a real-looking user id nobody means to ping
EVIL_LEAGUE = "<@999> **x** @everyone"
EVIL_DISPLAY = "<@&1> _y_"
EVIL_ROUND = f"<@{NOBODY_ID}> @here ~~z~~"
EVIL_DATE = "<@&1> @everyone"
EVIL_CODE_NAME = "~~z~~ ```"  # Bob's name in the league: it would end a code block
YUKI = pl.FakeUser(1100000000000000037, "yuki", nick=EVIL_DISPLAY)
# Nothing of these may show raw outside code: each is a working mention or markdown.
RAW = ["<@999>", "@everyone", "@here", "<@&1>", f"<@{NOBODY_ID}>", "**x**", "_y_", "~~z~~"]


def evil_world() -> pl.World:
    w = world()
    w.add_user(YUKI)
    return w


def texts(call: Call) -> list[str]:
    """Everything of a message that Discord shows as text."""
    out = [call.content or ""]
    for embed in call.embeds:
        out += [embed.get("title") or "", embed.get("description") or ""]
        out += [(embed.get("footer") or {}).get("text") or ""]
        for f in embed.get("fields") or []:
            out += [f.get("name") or "", f.get("value") or ""]
    return [t for t in out if t]


def outside_code(text: str) -> str:
    """The text without its code blocks and spans (no mention or markdown works in one)."""
    text = re.sub(r"(?<!\\)```[\s\S]*?(?<!\\)```", " ", text)
    return re.sub(r"(?<!\\)`[^`]*(?<!\\)`", " ", text)


def raw_names(calls: list[Call]) -> list[str]:
    """Where a typed name shows raw: a mention that works, or its markdown."""
    found = []
    for call in calls:
        for text in texts(call):
            plain = outside_code(text)
            found += [f"{raw!r} in {text!r}" for raw in RAW if raw in plain]
    return found


def ping_problems(calls: list[Call], drivers: set[int]) -> list[str]:
    """Messages that allow a ping the bot did not mean: any but the drivers a message
    mentions itself (a prompt, a reminder), never a role, @everyone or a typed id."""
    found = []
    for call in calls:
        content = call.content or ""
        if not call.is_message or not content:
            continue
        allowed = call.body.get("allowed_mentions")
        if allowed is None:
            found.append(f"no allowed_mentions: {content!r}")
            continue
        meant = {int(u) for u in re.findall(r"<@!?(\d+)>", content)} & drivers
        users = {int(u) for u in allowed.get("users") or []}
        if allowed.get("parse") or allowed.get("roles") or not users <= meant:
            found.append(f"{allowed} for {content!r}")
    return found


def messages_of(calls: list[Call]) -> list[Call]:
    return [c for c in calls if c.is_message]


async def league_commands(d: InProcessDriver) -> None:
    """Every /league and /league-admin command (Confirm pressed where one asks) and the
    league's Join button, with names made to ping."""
    league = {"league": EVIL_LEAGUE}
    await d.slash("league", "create", name=EVIL_LEAGUE, game="waddington", user=ALICE)
    await d.slash("league", "join", **league, user=YUKI)  # named as the server shows her
    await d.slash("league", "join", **league, name=EVIL_CODE_NAME, user=BOB)
    created = await d.bot.store.get_league(d.world.guild_id, EVIL_LEAGUE)
    await d.click(f"pd:league:{created.id}:join", user=CAROL)
    await d.slash("league", "list", user=BOB)
    await d.slash("league", "join", **league, user=ERIN)
    await d.slash("league", "leave", **league, user=ERIN)
    await d.slash("league-admin", "round-set", **league, number=1, name=EVIL_ROUND, date=EVIL_DATE)
    await d.slash("league-admin", "round-set", **league, number=2, name=EVIL_ROUND)
    await d.slash("league-admin", "round-remove", **league, number=2)
    await d.slash("league", "calendar", **league)
    await d.slash("league", "info", **league)
    order = f"<@{YUKI.id}> <@{BOB.id}> <@{CAROL.id}>"
    await d.slash(
        "league-admin", "record", **league, round=1, order=order, retired=f"<@{CAROL.id}>"
    )
    await d.slash("league", "results", **league, round=1)
    await d.slash("league-admin", "correct", **league, round=1, driver=CAROL.id, place=4)
    await d.slash("league-admin", "correct", **league, round=1, driver=DAVE.id, place=5)  # refused
    await d.slash("league", "standings", **league)
    await d.slash("league-admin", "points", **league, table="modern")
    await d.slash("league-admin", "robots", **league, places="on")
    await confirmed(d, "league-admin", "remove-member", **league, driver=CAROL.id)
    # Refusals that name the league (bot/league_tables.py): another game's, not a member.
    await d.slash("rf90", "new", track="barcelona", **league, round=1, user=YUKI)
    await d.slash("league-admin", "round-set", **league, number=3, name="Goodwood")
    await d.slash("f1", "new", **league, round=3, user=ALICE)
    await confirmed(d, "league-admin", "close-season", **league)
    await d.slash("f1", "new", **league, round=3, user=YUKI)  # the season is closed


async def test_league_commands_show_typed_names_escaped_and_ping_nobody(tmp_path: Path) -> None:
    async with InProcessDriver(make_bot(tmp_path / "names.db"), evil_world()) as d:
        await league_commands(d)
        sent = messages_of(d.backend.calls)
        shown_text = " ".join(t for c in sent for t in texts(c))
        assert shown(EVIL_LEAGUE) in shown_text and shown(EVIL_DISPLAY) in shown_text
        assert shown(EVIL_ROUND) in shown_text and shown(EVIL_DATE) in shown_text
        assert "Champion: " + shown(EVIL_DISPLAY) in shown_text
        label = shown(f"{EVIL_LEAGUE} (season 1)")
        for refusal in (f"is not a member of **{label}**", f"**{label}** is a Waddington's"):
            assert refusal in shown_text  # the refusals this change words (not the store's)
        standings = next(c for c in sent if c.embeds and "standings" in c.embeds[0]["title"])
        assert "ˋˋˋ" in standings.embeds[0]["description"]  # Bob's name kept in the block
        assert raw_names(sent) == []
        assert ping_problems(sent, drivers=set()) == []


async def test_store_refusals_name_the_league_escaped(tmp_path: Path) -> None:
    async with InProcessDriver(make_bot(tmp_path / "store.db"), evil_world()) as d:
        await d.slash("league", "create", name=EVIL_LEAGUE, game="waddington", user=ALICE)
        await d.slash("league", "join", league=EVIL_LEAGUE, user=YUKI)
        mark = d.backend.mark()
        await d.slash("league", "create", name=EVIL_LEAGUE, game="waddington", user=ALICE)
        await d.slash("league", "join", league=EVIL_LEAGUE, user=YUKI)  # already a member
        await d.slash("league", "results", league=EVIL_LEAGUE, round=7)  # no round 7
        refusals = messages_of(d.backend.calls[mark:])
        assert len(refusals) == 3 and all(c.ephemeral for c in refusals)
        assert ping_problems(refusals, drivers=set()) == []
        assert raw_names(refusals) == []


@dataclass
class RaceRun:
    """What the fake Discord received while a league race was played, and by whom."""

    calls: list[Call]
    drivers: set[int]


async def league_race(d: InProcessDriver) -> RaceRun:
    """A league race of Waddington's F1 with the names above: the lobby, a refused start, a
    click out of turn, /games, /f1 log and status, every move to the finish; and a Pit
    Formula game started with a mention."""
    league = {"league": EVIL_LEAGUE}
    await d.slash("league", "create", name=EVIL_LEAGUE, game="waddington", user=ALICE)
    for user in (YUKI, BOB):
        await d.slash("league", "join", **league, user=user)
    await d.slash("league-admin", "round-set", **league, number=1, name=EVIL_ROUND, user=ALICE)
    mark = d.backend.mark()
    gid = await new_game(
        d, "f1", "new", **league, round=1, laps=1, robots=1, turn_minutes=60, user=YUKI
    )
    record = await d.bot.store.load_game(gid)
    assert record.thread_id is not None
    register_thread(d, record.thread_id)
    await d.click(f"pd:f1:{gid}:join", user=BOB)
    await d.click(f"pd:f1:{gid}:start", user=BOB)  # refused: Yuki hosts
    await d.click(f"pd:f1:{gid}:start", user=YUKI)
    await settled(d, gid)
    game, state, seq = await state_of(d, gid)
    seats = {s.seat: s.user_id for s in await d.bot.store.seats(gid)}
    waiting = seats[game.to_act(state)[0]]
    other = BOB if waiting == YUKI.id else YUKI
    await d.click(f"pd:f1:{gid}:act:{seq}.0", user=other)  # not your turn: names who is
    await d.slash("games", user=YUKI)
    await d.slash("games", user=BOB)
    await d.slash("f1", "status", user=YUKI, channel_id=record.thread_id)
    for move in range(400):
        game, state, _ = await state_of(d, gid)
        if game.is_terminal(state):
            break
        if move == 8:
            await d.slash("f1", "log", count=50, user=BOB, channel_id=record.thread_id)
        await play_one_click(d, gid)
    assert game.is_terminal(state)
    d.bot.get_cog("PitCog").countdown_seconds = 0  # type: ignore[union-attr]
    await d.slash("pit", "start", players=f"<@{YUKI.id}>", races=1, user=BOB)
    return RaceRun(list(d.backend.calls[mark:]), {YUKI.id, BOB.id})


@pytest.fixture(scope="module")
def race_run(tmp_path_factory: pytest.TempPathFactory) -> RaceRun:
    """The league race, played once for the tests below (in its own event loop)."""

    async def run() -> RaceRun:
        db = tmp_path_factory.mktemp("race") / "race.db"
        async with InProcessDriver(make_bot(db), evil_world(), timeout=20) as d:
            return await league_race(d)

    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(f1_driver.USERS, YUKI.id, YUKI)  # the driver helpers click for her
        return asyncio.run(run())


def test_race_messages_allow_only_the_drivers_they_ping(race_run: RaceRun) -> None:
    sent = messages_of(race_run.calls)
    assert ping_problems(sent, race_run.drivers) == []
    # The prompts do ping the driver they ask (and only them).
    pinged = [c for c in sent if (c.body.get("allowed_mentions") or {}).get("users")]
    assert pinged and all(len(c.body["allowed_mentions"]["users"]) >= 1 for c in pinged)


def test_race_messages_show_typed_names_escaped(race_run: RaceRun) -> None:
    assert raw_names(messages_of(race_run.calls)) == []


# Forged buttons ----------------------------------------------------------------------------

OTHER_GUILD_ID = 1100000000000000901
AREAS = {"f1": "waddington", "rf90": "rf90", "pit": "pitformula"}
ACTIONS = [
    "join",
    "leave",
    "start",
    "cancel",
    "robot-add",
    "robot-remove",
    "colour",
    "act",
    "abandon",
    "hand",
    "cockpit",
    "pick",
    "cards",
    "reveal",
    "flag",
]
USERS = [ALICE, BOB, CAROL, DAVE, ERIN]
MANAGERS = {ALICE.id, CAROL.id}  # Manage Server, administrator
# What the bot itself puts in a custom_id (bot/components.py): anything else is forged.
CANONICAL = re.compile(
    r"pd:(?P<area>[a-z0-9]+):(?P<ref>[1-9][0-9]*):(?P<action>[a-z0-9_-]+)"
    r"(?::(?P<arg>[A-Za-z0-9_.-]+))?"
)


@dataclass
class Scene:
    """What the fuzzed clicks aim at: games by name, leagues, and where each lives."""

    games: dict[str, int] = field(default_factory=dict)
    leagues: dict[str, int] = field(default_factory=dict)
    homes: dict[int, int] = field(default_factory=dict)  # game id -> its thread or channel
    places: list[int] = field(default_factory=list)  # channels and threads to click in
    carriers: dict[int, dict[str, Any]] = field(default_factory=dict)  # place -> a message


def register_thread(d: InProcessDriver, thread_id: int) -> None:
    """Interactions sent from a thread carry the thread itself as their channel."""
    d.world.channels.setdefault(thread_id, d.backend.threads[thread_id])


async def new_game(d: InProcessDriver, *path: str, **options: Any) -> int:
    before = {g.id for g in await d.bot.store.list_games()}
    await d.slash(*path, **options)
    (gid,) = [g.id for g in await d.bot.store.list_games() if g.id not in before]
    return gid


async def build_scene(d: InProcessDriver) -> Scene:
    store, scene = d.bot.store, Scene()
    d.bot.get_cog("PitCog").countdown_seconds = 0  # type: ignore[union-attr]
    # A league here (ALICE and BOB drive in it) and one of another server.
    await d.slash("league", "create", name="Spring Cup", game="waddington", user=ALICE)
    for user in (ALICE, BOB):
        await d.slash("league", "join", league="Spring Cup", user=user)
    scene.leagues["here"] = (await store.get_league(d.world.guild_id, "Spring Cup")).id
    elsewhere = await store.create_league(OTHER_GUILD_ID, "Away", "waddington", "x", [3, 1], 1)
    scene.leagues["away"] = elsewhere.id

    # f1: an open lobby (ALICE), a running race (ALICE, BOB, a robot), a cancelled lobby
    scene.games["f1-lobby"] = await new_game(
        d, "f1", "new", laps=1, robots=1, turn_minutes=60, user=ALICE
    )
    gid = scene.games["f1-running"] = await new_game(  # (the same options again: a retry)
        d, "f1", "new", laps=1, robots=1, turn_minutes=60, max_players=5, user=ALICE
    )
    await d.click(f"pd:f1:{gid}:join", user=BOB)
    await d.click(f"pd:f1:{gid}:start", user=ALICE)
    await settled(d, gid)
    gid = scene.games["f1-cancelled"] = await new_game(
        d, "f1", "new", laps=1, turn_minutes=60, user=BOB
    )
    await d.click(f"pd:f1:{gid}:cancel", user=BOB)
    # and a race abandoned under way (its state kept).
    gid = scene.games["f1-abandoned"] = await new_game(
        d, "f1", "new", laps=1, robots=1, turn_minutes=60, user=BOB
    )
    await d.click(f"pd:f1:{gid}:start", user=BOB)
    await settled(d, gid)
    thread = (await store.load_game(gid)).thread_id
    assert thread is not None
    register_thread(d, thread)
    await d.slash("f1", "abandon", user=BOB, channel_id=thread)  # asks to confirm
    await d.click(f"pd:f1:{gid}:abandon", user=BOB)
    assert (await store.load_game(gid)).status == "abandoned"
    # rf90: a lobby (BOB) and a race in its set-up (ALICE, the robots the rules give).
    scene.games["rf90-lobby"] = await new_game(
        d, "rf90", "new", track="barcelona", turn_minutes=60, user=BOB
    )
    gid = scene.games["rf90-running"] = await new_game(
        d, "rf90", "new", track="silverstone", turn_minutes=60, user=ALICE
    )
    await d.click(f"pd:rf90:{gid}:start", user=ALICE)
    # Pit Formula: a lobby in #races (BOB), a game under way in #general (ALICE and BOB).
    scene.games["pit-lobby"] = await new_game(
        d, "pit", "start", races=2, user=BOB, channel_id=RACES_CHANNEL_ID
    )
    scene.games["pit-running"] = await new_game(
        d, "pit", "start", players=f"<@{BOB.id}>", races=2, user=ALICE
    )
    # A game of another server, with the same channel.
    away = await store.create_game(
        "waddington",
        1,
        {},
        None,
        guild_id=OTHER_GUILD_ID,
        channel_id=GENERAL_CHANNEL_ID,
        status="lobby",
        settings={"host": BOB.id, "laps": 1, "max_players": 6, "turn_seconds": 60},
        seats=[Seat(seat=0, user_id=BOB.id, name="bob", robot=False)],
    )
    scene.games["f1-away"] = away.id

    scene.places = [GENERAL_CHANNEL_ID, RACES_CHANNEL_ID]
    for record in await store.list_games():
        if record.guild_id != d.world.guild_id:
            continue
        home = record.thread_id or record.channel_id
        assert home is not None
        scene.homes[record.id] = home
        if record.thread_id is not None:
            register_thread(d, record.thread_id)
            scene.places.append(record.thread_id)
    for message in d.backend.messages.values():
        scene.carriers.setdefault(int(message["channel_id"]), message)
    assert set(scene.places) <= set(scene.carriers), "a message to click on in each place"
    return scene


# Clicks ------------------------------------------------------------------------------------


@dataclass
class Click:
    custom_id: str
    user: pl.FakeUser
    place: int  # the channel or thread the button's message is in
    other_guild: bool = False
    component_type: int = 2

    def __repr__(self) -> str:
        where = "another server" if self.other_guild else str(self.place)
        return f"<Click {self.custom_id!r} by {self.user.name} in {where}>"


def junk(rng: random.Random, alphabet: str, low: int = 0, high: int = 12) -> str:
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(low, high)))


def an_arg(rng: random.Random, seq: int) -> str | None:
    return rng.choice(
        [
            None,
            None,
            "",
            f"{seq}.0",
            f"{seq}.{rng.randint(0, 30)}",
            f"{seq}.-1",
            f"{seq + rng.choice([-1, 1])}.0",
            f"{rng.randint(0, 10**25)}.{rng.randint(0, 10**25)}",
            rng.choice(["red", "blue", "green", "yellow", "t1", "t2", "w", "e", "g", "x"]),
            f"abc.{rng.randint(0, 5)}.p{rng.randint(-2, 5)}",
            junk(rng, string.ascii_letters + string.digits + "_.-:", 1, 30),
        ]
    )


def generate(rng: random.Random, scene: Scene, seqs: dict[int, int]) -> Click:
    """A click: mostly a real area and action on a real game or league (of any kind, here
    or elsewhere), else parts of the pattern mixed with junk, else a random string."""
    ids = list(scene.games.values()) + list(scene.leagues.values())
    kind = rng.random()
    if kind < 0.08:  # a fully random string
        custom_id = junk(rng, string.printable + "é٣💥", 1, 100)
    elif kind < 0.7:  # aimed: a real id under a real area, any action
        real = rng.choice(ids)
        area = rng.choice([*AREAS, "league"])
        if rng.random() < 0.85:  # mostly under its own area
            area = next(
                (
                    a
                    for a, k in AREAS.items()
                    for g in scene.games
                    if scene.games[g] == real and g.startswith(a)
                ),
                "league",
            )
        action = rng.choice(ACTIONS) if area != "league" else rng.choice(["join", *ACTIONS])
        arg = an_arg(rng, seqs.get(real, 0))
        custom_id = ":".join(["pd", area, str(real), action] + ([] if arg is None else [arg]))
    else:  # the pattern's parts, real and broken
        area = rng.choice(
            [*AREAS, *AREAS, "league", "league", "nope", "", "F1", "pd", junk(rng, "az09:")]
        )
        real = rng.choice(ids)
        ref = rng.choice(
            [
                str(real),
                str(real),
                "0",
                str(2**63 - 1),
                str(2**63),
                str(2**64 + real),
                "9" * rng.randint(19, 40),
                f"-{real}",
                "",
                f"00{real}",
                f" {real}",
                "٣",
                str(rng.randint(1, 10**6)),
            ]
        )
        action = rng.choice([*ACTIONS, *ACTIONS, "", "JOIN", junk(rng, "az-_:")])
        arg = an_arg(rng, seqs.get(real, 0))
        parts = ["pd", area, ref, action] + ([] if arg is None else [arg])
        if rng.random() < 0.1:  # a part dropped or doubled
            index = rng.randrange(len(parts))
            parts = parts[:index] + parts[index + 1 :] if rng.random() < 0.5 else parts + parts
        custom_id = ":".join(parts)[:100] or "pd"
    place = rng.choice(scene.places)
    match = CANONICAL.fullmatch(custom_id)
    if match and int(match["ref"]) in scene.homes and rng.random() < 0.85:
        place = scene.homes[int(match["ref"])]  # mostly clicked where the game is
    return Click(
        custom_id,
        rng.choice(USERS),
        place,
        other_guild=rng.random() < 0.07,
        component_type=3 if rng.random() < 0.02 else 2,
    )


async def maybe_legal(d: InProcessDriver, scene: Scene, click: Click) -> bool:
    """Whether the bot could rightly act on this click: the custom_id is one the bot makes,
    for a game or league of this server (a game in this channel or thread), and what it
    asks is allowed for this user now. Computed from the database, as the bot decides."""
    match = CANONICAL.fullmatch(click.custom_id)
    if match is None or click.other_guild or click.component_type != 2:
        return False
    store, area, ref = d.bot.store, match["area"], int(match["ref"])
    action, arg = match["action"], match["arg"]
    if ref > 2**63 - 1:
        return False
    if area == "league":
        if action != "join" or arg is not None or ref not in scene.leagues.values():
            return False
        league = await store.league_by_id(ref)
        member = await store.member_by_user(league.id, click.user.id)
        return league.guild_id == d.world.guild_id and league.is_open and member is None
    if area not in AREAS or ref not in scene.homes:
        return False
    record = await store.load_game(ref)
    if record.kind != AREAS[area] or click.place not in (record.thread_id, record.channel_id):
        return False
    presenter = d.bot.table.presenters[record.kind]
    seats = await store.seats(ref)
    user = click.user.id
    seated = any(s.user_id == user and not s.robot for s in seats)
    manager = user in MANAGERS or user == record.settings.get("host")
    if record.status == "lobby":
        settings = record.settings
        if action == "join":
            return not seated and len(seats) < settings.get("max_players", presenter.max_players)
        if action == "leave":
            return seated and len(seats) > 1
        if action in ("start", "cancel"):
            return manager
        if action in ("robot-add", "robot-remove"):
            return manager and "robots" in settings  # the lobby offers these buttons
        if action == "colour":
            taken = {c for u, c in settings.get("colours", {}).items() if u != str(user)}
            return seated and arg in presenter.colours and arg not in taken
        return False
    if record.state_json is None:  # a lobby that never started
        return False
    game = get_game(record.kind)
    loaded = Loaded(record, game, game.load_state(record.state_json), {s.seat: s for s in seats})
    mine = loaded.human_seat(user)
    if area == "f1" and action == "hand":
        return mine is not None  # a look at one's own cards, even after the race
    if record.status != "running":
        return False
    if action == "abandon":
        return manager
    waiting = presenter.waiting_seats(loaded.state)
    to_act = mine is not None and mine.seat in waiting
    if area == "f1":
        if action == "act" and to_act and arg:
            token, _, index = arg.partition(".")
            options = game.legal_actions(loaded.state, mine.seat)  # type: ignore[union-attr]
            return token == str(record.seq) and index.isdigit() and int(index) < len(options)
        return False
    if area == "rf90":
        if action == "cockpit":
            return to_act
        if action == "pick" and to_act and arg:
            try:
                token, _, _ = decode(arg)
            except ValueError:
                return False
            return token == presenter.act_token(loaded, mine.seat)  # type: ignore[union-attr]
        return False
    # Pit Formula: everyone plays at once.
    if action == "cards":
        return mine is not None
    if action == "flag":
        return mine is not None and loaded.state.phase == "repair"
    if action == "reveal" and mine is not None and loaded.state.phase == "repair":
        car = loaded.state.cars[mine.seat]
        return any(c.slot == arg and not c.revealed for c in car.cards)
    return False


def carrier_payload(d: InProcessDriver, scene: Scene, click: Click) -> dict[str, Any]:
    """The interaction Discord sends for this click: the button on a message of the bot's
    in that place (Discord sends the message's own components)."""
    component = (
        {"type": 2, "style": 2, "custom_id": click.custom_id, "label": "x"}
        if click.component_type == 2
        else {"type": 3, "custom_id": click.custom_id, "options": [], "min_values": 1}
    )
    message = {
        **scene.carriers[click.place],
        "components": [{"type": 1, "components": [component]}],
    }
    payload = pl.component_payload(
        d.world,
        click.custom_id,
        message=message,
        user=click.user,
        component_type=click.component_type,
        values=["x"] if click.component_type == 3 else None,
    )
    if click.other_guild:
        payload.update(
            guild_id=str(OTHER_GUILD_ID),
            guild={"id": str(OTHER_GUILD_ID), "locale": "en-US", "features": []},
            authorizing_integration_owners={"0": str(OTHER_GUILD_ID)},
        )
        payload["channel"]["guild_id"] = str(OTHER_GUILD_ID)
    return payload


def refusal_problems(calls: Calls) -> list[str]:
    """What is wrong with the bot's answer to a click it must refuse: one ephemeral line,
    as the answer or (a click acknowledged at once: a move's, a lobby's, a Pit Formula
    action's private "thinking…") as the one followup of a deferred answer; no other call."""
    problems = [f"error logged: {e!r}" for e in calls.errors]
    answers = calls.interaction_responses
    if len(answers) != 1:
        problems.append(f"{len(answers)} interaction responses")
    deferred = [
        a for a in answers if a.json.get("type") == 6 or (a.json.get("type") == 5 and a.ephemeral)
    ]
    messages = calls.messages
    if deferred and [m.kind for m in messages] != ["followup"]:
        problems.append(f"deferred, then not one followup: {list(messages)!r}")
    if len(messages) != 1:
        problems.append(f"{len(messages)} messages: {list(messages)!r}")
    for message in messages:
        text = message.content or ""
        if not message.ephemeral:
            problems.append(f"public answer {text!r}")
        if text == UNEXPECTED or "Something went wrong" in text:
            problems.append("the generic error")
        if not text.strip() or "\n" in text:
            problems.append(f"not one line: {text!r}")
    others = [c for c in calls if not c.is_message and c not in deferred]
    if others:
        problems.append(f"other calls: {others!r}")
    return problems


async def seqs_of(d: InProcessDriver) -> dict[int, int]:
    return {g.id: g.seq for g in await d.bot.store.list_games()}


def clicks(seed: int, scene: Scene, seqs: dict[int, int], count: int) -> Iterator[Click]:
    rng = random.Random(seed)
    for _ in range(count):
        yield generate(rng, scene, seqs)


def known_defect(scene: Scene, click: Click, record_settings: dict[int, dict[str, Any]]) -> bool:
    """A click the fuzz finds wrongly accepted by code this change does not own (its own
    strict xfail test below): a league admin's Robot +/- on a lobby that offers no robots."""
    match = CANONICAL.fullmatch(click.custom_id)
    if match is None or click.other_guild or match["action"] not in ("robot-add", "robot-remove"):
        return False
    ref = int(match["ref"])
    return (
        ref in record_settings
        and "robots" not in record_settings[ref]
        and (click.user.id in MANAGERS or click.user.id == record_settings[ref].get("host"))
        and click.place == scene.homes.get(ref)
    )


async def test_fuzzed_forged_buttons_are_refused_in_one_line_and_change_nothing(
    tmp_path: Path,
) -> None:
    async with InProcessDriver(make_bot(tmp_path / "fuzz.db"), world(), timeout=20) as d:
        scene = await build_scene(d)
        store = d.bot.store
        before = await dump(store)
        seqs = await seqs_of(d)
        lobbies = {g.id: g.settings for g in await store.list_games() if g.status == "lobby"}
        d.raise_errors = False  # collected per click below, with the click that caused it
        failures: list[str] = []
        answers: set[str] = set()
        sent = 0
        for click in clicks(20240611, scene, seqs, 1000):
            if await maybe_legal(d, scene, click) or known_defect(scene, click, lobbies):
                continue
            sent += 1
            calls = await d.dispatch(carrier_payload(d, scene, click))
            problems = refusal_problems(calls)
            after = await dump(store)
            if after != before:
                changed = [t for t in after if after[t] != before.get(t)]
                problems.append(f"database changed: {changed}")
                before = after
            if problems:
                failures.append(f"{click!r}: {'; '.join(problems)}")
            answers.add((calls.content or "") if calls.messages else "")
        assert sent > 900
        assert not failures, f"{len(failures)} of {sent} clicks:\n" + "\n".join(failures[:40])
        # The clicks reached past the routing into the games' and the league's own checks.
        assert len(answers) > 20, answers


@pytest.mark.parametrize(
    "command",
    [
        ("rf90", "new", {"track": "barcelona", "turn_minutes": 60}),
        ("pit", "start", {"races": 1, "channel_id": RACES_CHANNEL_ID}),
    ],
    ids=["rf90", "pit"],
)
async def test_robot_buttons_a_lobby_does_not_offer_are_refused(
    tmp_path: Path, command: tuple[str, str, dict[str, Any]]
) -> None:
    area, verb, options = command
    async with InProcessDriver(make_bot(tmp_path / "robots.db"), world(), timeout=20) as d:
        gid = await new_game(d, area, verb, user=BOB, **options)
        record = await d.bot.store.load_game(gid)
        home = record.thread_id or record.channel_id
        assert home is not None and "robots" not in record.settings
        if record.thread_id is not None:
            register_thread(d, record.thread_id)
        lobby = next(m for m in d.backend.messages.values() if int(m["channel_id"]) == home)
        scene = Scene(carriers={home: lobby})
        before = await dump(d.bot.store)
        click = Click(f"pd:{area}:{gid}:robot-add", ALICE, home)  # a league admin
        calls = await d.dispatch(carrier_payload(d, scene, click))
        assert refusal_problems(calls) == []
        assert await dump(d.bot.store) == before
