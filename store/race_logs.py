"""A finished league race's log in words, kept once (migration 0017: `race_logs`): what the
league site's race page shows of it (web/race_data.py), worked out by replaying the race's
standing actions from its seed through its rules, 10-40 ms of CPU for a long race.

The bot keeps it when a league race finishes (bot/table/publish.py, off the event loop and
after the finish is stored and told), so that the site, which opens the database read-only,
does not replay the race at its page's first visit; a race finished before that (or whose
log the bot had no time to keep) is replayed by the site as before. A log is kept with the
seq it was made at: a race taken back and finished again has a new seq, so the old log is
never shown for it (and the new finish keeps its own).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from rules.base import Event, get_game
from rules.spec import resolve
from store.dialect import Tx
from store.sites import SiteStore


@dataclass(frozen=True)
class RaceLog:
    """What the replay of a race's log gives its page, before any name is put in: each
    standing action's (seq, actor as stored, its line in words), the final classification's
    (seat, place, status), and for RF90 the count of its thread's pictures."""

    actions: list[tuple[int, str, str]]
    placings: list[tuple[int, int, str]]
    steps: int

    def to_json(self) -> str:
        return json.dumps(
            {"actions": self.actions, "placings": self.placings, "steps": self.steps},
            separators=(",", ":"),
        )

    @classmethod
    def from_json(cls, text: str) -> RaceLog:
        data = json.loads(text)
        return cls(
            [(int(seq), str(actor), str(said)) for seq, actor, said in data["actions"]],
            [(int(seat), place, str(status)) for seat, place, status in data["placings"]],
            int(data["steps"]),
        )


def replay_log(
    kind: str,
    seed: int,
    config: dict[str, Any],
    state_json: str,
    actions: Iterable[tuple[int, str, str]],
) -> RaceLog:
    """The race's standing actions (seq, actor, action JSON) replayed from its seed (CPU:
    off the event loop): one replay on one state, without a copy per action; a game that
    shows pictures between actions replays through its spec's `replay`, which counts them."""
    rules = get_game(kind)
    actions = list(actions)
    said: list[list[Event]] = []
    pictures = 0
    if rules.spec.replay:
        said, pictures = resolve(rules.spec.replay)(seed, config, (a[2] for a in actions))
    else:
        state = rules.new_game(seed, config)
        for _, _, action_json in actions:
            # the replay's own state, never read again: no copy per action (RF90's were
            # nine tenths of its race page's time)
            state, events = rules.apply_owned(state, rules.parse_action(action_json))
            said.append(events)
    lines = [
        (seq, actor, "; ".join(e.text for e in events if e.text) or "(no public effect)")
        for (seq, actor, _), events in zip(actions, said, strict=True)
    ]
    final = rules.load_state(state_json)
    placings: list[tuple[int, int, str]] = [
        (p.seat, p.place, p.status) for p in rules.classification(final)
    ]
    return RaceLog(lines, placings, pictures)


class RaceLogStore(SiteStore):
    async def keep_race_log(self, game_id: int, seq: int, log: RaceLog) -> None:
        """Keep a finished race's log, made at `seq` (a later one replaces it)."""

        async def keep(tx: Tx) -> None:
            await tx.execute(
                "INSERT INTO race_logs (game_id, seq, log_json) VALUES (?, ?, ?)"
                " ON CONFLICT (game_id) DO UPDATE SET seq = excluded.seq,"
                " log_json = excluded.log_json",
                game_id,
                seq,
                log.to_json(),
            )

        await self._transact(keep)

    async def race_log(self, game_id: int, seq: int) -> RaceLog | None:
        """The race's kept log if it was made at `seq` (None: none kept, or an older one)."""
        row = await self._one(
            "SELECT log_json FROM race_logs WHERE game_id = ? AND seq = ?", game_id, seq
        )
        return None if row is None else RaceLog.from_json(str(row["log_json"]))
