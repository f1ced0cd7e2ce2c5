"""Replay every game's action log from its seed and compare it with the stored snapshot."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from rules.base import get_game
from rules.errors import IllegalAction
from store.models import ActionRecord
from store.protocol import Store
from store.undo import mark_of, standing


@dataclass
class Mismatch:
    game_id: int
    kind: str
    seq: int
    problem: str

    def line(self) -> str:
        return f"game #{self.game_id} ({self.kind}, {self.seq} actions): {self.problem}"


@dataclass
class VerifyReport:
    checked: int
    mismatches: list[Mismatch]

    @property
    def ok(self) -> bool:
        return not self.mismatches

    def text(self) -> str:
        if self.ok:
            return f"verify: {self.checked} game(s) replayed; every snapshot matches its log."
        lines = [f"verify: {len(self.mismatches)} of {self.checked} game(s) differ:"]
        lines += [f"  - {m.line()}" for m in self.mismatches]
        return "\n".join(lines)


def first_difference(a: Any, b: Any, path: str = "$") -> str | None:
    """The JSON path of the first place where two decoded JSON values differ."""
    if type(a) is not type(b):
        return f"{path}: {_short(a)} != {_short(b)}"
    if isinstance(a, dict):
        for key in sorted(set(a) | set(b)):
            if key not in a or key not in b:
                return f"{path}.{key}: present in only one of them"
            found = first_difference(a[key], b[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{path}: length {len(a)} != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            found = first_difference(x, y, f"{path}[{i}]")
            if found:
                return found
        return None
    return None if a == b else f"{path}: {_short(a)} != {_short(b)}"


def _short(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _bad_mark(log: list[ActionRecord]) -> str | None:
    """Why a mark of the log (an undo or a rewind, store/undo.py) cannot be replayed: it
    must return to an earlier entry that still stood, or the start."""
    stood: set[int] = {0}
    for entry in log:
        try:
            mark = mark_of(entry)
        except ValueError as exc:
            return f"entry {entry.seq} is not a mark: {exc}"
        if mark is None:
            stood.add(entry.seq)
        elif mark.to not in stood:
            return f"entry {entry.seq} takes the race back to {mark.to}, which did not stand"
        else:
            stood = {seq for seq in stood if seq <= mark.to}
    return None


async def verify_store(store: Store) -> VerifyReport:
    mismatches: list[Mismatch] = []
    checked = 0
    for record in await store.list_games():
        if record.state_json is None:
            continue  # a lobby: nothing has been played yet
        checked += 1
        try:
            game = get_game(record.kind)
        except KeyError as exc:
            mismatches.append(Mismatch(record.id, record.kind, record.seq, str(exc)))
            continue
        log = await store.actions(record.id)
        if [a.seq for a in log] != list(range(1, len(log) + 1)) or len(log) != record.seq:
            mismatches.append(
                Mismatch(
                    record.id,
                    record.kind,
                    record.seq,
                    f"the log has {len(log)} actions but the snapshot is at {record.seq}",
                )
            )
            continue
        state = game.new_game(record.seed, record.config)
        failed = _bad_mark(log)
        for entry in [] if failed else standing(log):
            try:
                state, _ = game.apply(state, game.parse_action(entry.action_json))
            except (IllegalAction, ValueError) as exc:
                failed = f"action {entry.seq} is refused on replay: {exc}"
                break
        if failed is None:
            replayed = state.model_dump_json()
            if replayed != record.state_json:
                where = first_difference(json.loads(replayed), json.loads(record.state_json))
                failed = f"replayed state differs from the snapshot at {where or 'formatting'}"
        if failed:
            mismatches.append(Mismatch(record.id, record.kind, record.seq, failed))
    return VerifyReport(checked, mismatches)
