"""A click reads its game once for each thing it does: an RF90 cockpit's last pick reads the
game row twice (to ask the question, then under the race's lock to play it) and works out the
driver's legal actions once per read, not once per part of the table that asks."""

from __future__ import annotations

import collections
from pathlib import Path
from typing import Any

import pytest

from paddock_tools.bots import make_bot, world
from paddock_tools.fakediscord import ALICE, BOB, InProcessDriver
from paddock_tools.rf90_driver import PRESENTER, USERS, encode, facets, loaded, path_to, prompt_of
from rules.base import get_game


async def test_a_cockpit_pick_reads_the_game_once_per_step(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with InProcessDriver(make_bot(tmp_path / "rf.db"), world(), timeout=20) as d:
        await d.bot.images_warm
        await d.slash("rf90", "new", track="barcelona", turn_minutes=60, turns=3, user=ALICE)
        (gid,) = [g.id for g in await d.bot.store.list_games()]
        await d.click(f"pd:rf90:{gid}:join", user=BOB)
        await d.click(f"pd:rf90:{gid}:start", user=ALICE)

        store, game = d.bot.store, get_game("rf90")
        reads: collections.Counter[str] = collections.Counter()
        legal: collections.Counter[tuple[str, int]] = collections.Counter()
        load_game, seats, legal_actions = store.load_game, store.seats, type(game).legal_actions

        async def counted_load(*args: Any) -> Any:
            reads["row"] += 1
            return await load_game(*args)

        async def counted_seats(*args: Any) -> Any:
            reads["seats"] += 1
            return await seats(*args)

        def counted_legal(self: Any, state: Any, seat: int) -> Any:
            legal[(state.to_json(), seat)] += 1
            return legal_actions(self, state, seat)

        picks = 0
        for _ in range(6):  # set-up, qualifying, the start: decisions of one or more questions
            now = await loaded(d, gid)
            seat = PRESENTER.waiting_seats(now.state)[0]
            user = USERS[now.seats[seat].user_id]  # type: ignore[index]
            options = now.game.legal_actions(now.state, seat)
            path = path_to(options, facets(now.state), 0)
            token = PRESENTER.act_token(now, seat)
            clicks = [encode(token, path[:k]) for k in range(1, len(path) + 1)] or [token]
            await d.click(
                f"pd:rf90:{gid}:cockpit", user=user, message_id=int(prompt_of(d, gid)["id"])
            )
            for arg in clicks[:-1]:
                await d.click(f"pd:rf90:{gid}:pick:{arg}", user=user)
            reads.clear()
            legal.clear()
            with monkeypatch.context() as m:
                m.setattr(store, "load_game", counted_load)
                m.setattr(store, "seats", counted_seats)
                m.setattr(type(game), "legal_actions", counted_legal)
                await d.click(f"pd:rf90:{gid}:pick:{clicks[-1]}", user=user)
            assert (await loaded(d, gid)).record.seq > now.record.seq, "the pick was played"
            # the question's read and the play's read under the lock; nothing more
            assert reads == {"row": 2, "seats": 2}, reads
            # the driver's options in the state they picked in: once per read
            assert legal[(now.state.to_json(), seat)] == 2, legal
            assert max(legal.values()) <= 2, legal
            picks += 1
        assert picks == 6
