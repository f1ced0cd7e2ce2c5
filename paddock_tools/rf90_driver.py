"""Driving a /rf90 race in the in-process fake Discord the way drivers do: the public prompt's
cockpit button, then the cockpit's questions down to what the seat policy would choose."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from bot.choices import PAGE, encode, path_to
from bot.cogs.rf90 import RF90Presenter, facets
from bot.presenter import Loaded
from paddock_tools.fakediscord import ALICE, BOB, CAROL, InProcessDriver
from paddock_tools.fakediscord.backend import _walk_components
from rules.base import get_game

if TYPE_CHECKING:
    from bot.client import PaddockBot
    from store import Store

USERS = {u.id: u for u in (ALICE, BOB, CAROL)}
PRESENTER = RF90Presenter()


def custom_ids(message: dict[str, Any]) -> list[str]:
    return [
        c["custom_id"]
        for c in _walk_components(message.get("components") or [])
        if c.get("custom_id")
    ]


def store_of(d: InProcessDriver) -> Store:
    """The bot's store (the driver holds the bot as a plain `discord.Client`)."""
    return cast("PaddockBot", d.bot).store


async def loaded(d: InProcessDriver, gid: int) -> Loaded:
    record = await store_of(d).load_game(gid)
    assert record.state_json is not None, "the race has not started"
    game = get_game("rf90")
    seats = {s.seat: s for s in await store_of(d).seats(gid)}
    return Loaded(record, game, game.load_state(record.state_json), seats)


def prompt_of(d: InProcessDriver, gid: int) -> dict[str, Any]:
    live = [m for m in d.backend.messages.values() if f"pd:rf90:{gid}:cockpit" in custom_ids(m)]
    assert len(live) == 1, "exactly one live prompt"
    return live[0]


async def decide(
    d: InProcessDriver,
    gid: int,
    seat: int,
    timings: dict[str, list[float]] | None = None,
    choose: Callable[[list[Any], Any], Any] | None = None,
) -> list[Any]:
    """The seat's driver opens the cockpit and answers its questions; the calls made.
    `timings` (the bench) gets the seconds the bot took to answer the cockpit button
    ("cockpit") and the decision's last click ("press": to the state stored and the
    activations' pictures posted; a pit stop's: its Confirm). `choose(options, state)`
    picks the action to click (default: what the seat policy would do), confirmed when the
    bot asks first."""
    now = await loaded(d, gid)
    user_id = now.seats[seat].user_id
    assert user_id is not None, "a robot's seat has no user"
    user = USERS[user_id]
    started = time.perf_counter()
    opened = await d.click(
        f"pd:rf90:{gid}:cockpit", user=user, message_id=int(prompt_of(d, gid)["id"])
    )
    if timings is not None:
        timings.setdefault("cockpit", []).append(time.perf_counter() - started)
    assert opened.ephemeral, opened.content
    (answer,) = opened.interaction_responses
    if answer.json["type"] == 5:  # "thinking", privately, at once; then the cockpit drawn
        assert answer.ephemeral
        drawn = [c for c in opened if c.kind == "edit_original" and c.status == 200]
        assert [f.filename for c in drawn for f in c.files] == ["cockpit.png"]
    calls = list(opened)
    options = now.game.legal_actions(now.state, seat)
    if choose is not None:
        wanted = choose(options, now.state)
        assert wanted in options, "choose must pick one of the legal actions"
    else:
        wanted = now.game.robot_action(now.state, seat)
    # What the seat policy would do, when the cockpit offers it (the cockpit offers only the
    # engine's legal actions; otherwise the first of them).
    target = options.index(wanted) if wanted in options else 0
    path = path_to(options, facets(now.state), target)
    token = PRESENTER.act_token(now, seat)
    if not path:  # a single option: the cockpit asks to confirm it
        clicks = [f"pd:rf90:{gid}:pick:{token}"]
    else:
        clicks = []
        for k in range(1, len(path) + 1):
            for page in range(1, path[k - 1] // PAGE + 1):  # "More…" to the answer's page
                clicks.append(f"pd:rf90:{gid}:pick:{encode(token, path[: k - 1], page)}")
            clicks.append(f"pd:rf90:{gid}:pick:{encode(token, path[:k])}")
    for custom_id in clicks:
        started = time.perf_counter()
        last = await d.click(custom_id, user=user)
        calls += last
    asked = [cid for cid in last.custom_ids if cid.startswith(f"pd:rf90:{gid}:confirm:")]
    if asked:  # a costly decision (a pit stop) asks Confirm first: the driver confirms it
        started = time.perf_counter()
        last = await d.click(asked[-1], user=user)
        calls += last
    if timings is not None:
        timings.setdefault("press", []).append(time.perf_counter() - started)
        pictures = [c.at for c in last if any(f.filename.endswith("-track.png") for f in c.files)]
        if pictures:  # the first activation's track and dashboards posted
            timings.setdefault("picture", []).append(min(pictures) - started)
            timings.setdefault("pictures", []).append(len(pictures))
    after = await loaded(d, gid)
    assert after.record.seq > now.record.seq, "the decision was not applied"
    return calls


def with_seed(payload: dict[str, Any], seed: int) -> dict[str, Any]:
    """A `/rf90 new` payload whose interaction id gives the race this seed (the command takes
    the low 48 bits of the id; the high bits, the snowflake's time, are kept)."""
    assert 0 <= seed < 2**48
    payload["id"] = str(int(payload["id"]) >> 48 << 48 | seed)
    return payload


def seed_of(payload: dict[str, Any]) -> int:
    """The race's seed, as `/rf90 new` derives it from the interaction id."""
    return int.from_bytes(int(payload["id"]).to_bytes(8, "big")[-6:], "big")
