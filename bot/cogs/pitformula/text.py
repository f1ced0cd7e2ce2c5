"""What Pit Formula's messages say: a player's answer, the rules' refusals without typed
commands, the Rival's stopwatch and a finished race's message (pure text, from the state)."""

from __future__ import annotations

import re
from typing import Any

from bot.components import shown
from renderer.common import counted
from rules.pitformula import (
    FLAG_NAMES,
    Clear,
    Fix,
    PitFormulaState,
    RaceResult,
    Retire,
    Reveal,
    TakeFlag,
    car_of_seat,
    catalog,
    missing_repairs,
)


def repairs_text(required: dict[str, int]) -> str:
    parts = [f"{n} {p}{'s' if n > 1 and p == 'tyre' else ''}" for p, n in required.items() if n]
    return ", ".join(parts) or "nothing"


def answer_text(action: Any, state: PitFormulaState, seat: int, events: list[Any]) -> str:
    car = state.cars[car_of_seat(state, seat)]

    def still() -> str:
        return repairs_text(missing_repairs(car)) if state.phase == "repair" else "-"

    if isinstance(action, Fix):
        return (
            f"Tokens {' '.join(action.tokens)} laid on {action.card}. Still to repair: {still()}."
        )
    if isinstance(action, TakeFlag):
        # The last flag ends the race and the table is reset: the event says which it was.
        taken = next((e.data["flag"] for e in events if e.kind == "flag"), car.flag)
        return f"You took the {FLAG_NAMES[taken]} flag." if taken is not None else "Done."
    if isinstance(action, Reveal):
        return f"Turned over {', '.join(action.cards)}: see `My cards`."
    if isinstance(action, Clear):
        return f"Tokens back on the table from {action.card}. Still to repair: {still()}."
    if isinstance(action, Retire):
        return "You retired from this race: your pit stop is over."
    return "Done."


def without_typing(text: str) -> str:
    """A rules message with its typed commands (`clear t1`, `reveal t1`) replaced by what works
    without the Message Content intent: `/pit clear`, and the `Turn over` button."""
    text = re.sub(r"`clear (\w+)`", r"`/pit clear part:\1`", text)
    return re.sub(r"`reveal (\w+)`", r"`My cards`, then `Turn over \1`", text)


def clock_text(ms: int) -> str:
    seconds = max(0, ms // 1000)
    return f"{seconds // 60}:{seconds % 60:02d}"


def stopwatch_text(left_ms: int) -> str:
    return f"⏱ Rival's stopwatch: **{clock_text(left_ms)}** left"


def stopwatch_stopped_text(race: int, result: RaceResult, left_ms: int) -> str:
    if result.ended_by == "time_up":
        return f"⏱ Race {race}: the Rival's stopwatch ran out."
    return f"⏱ Race {race}: the Rival's stopwatch stopped with **{clock_text(left_ms)}** left."


ENDED_BY = {
    "flags": "every flag taken",
    "retire": "every car done",
    "time_up": "the stopwatch ran out",
}


def finished_race_text(state: PitFormulaState, names: dict[int, str]) -> str:
    """The race message once the race is scored: how each car ended it, no flags left."""
    result = state.results[-1]
    crash = catalog().crash_cards[result.crash].name
    lines = [
        f"🏁 Race {result.number}/{state.settings.races}"
        + (" - super crash" if result.super else "")
        + f": **{crash}** - over ({ENDED_BY.get(result.ended_by, 'finished')})."
    ]
    for cr in result.cars:
        who = " & ".join(shown(names.get(s, f"seat {s}")) for s in state.cars[cr.car].seats)
        flag = f"{FLAG_NAMES[cr.took_flag]} flag" if cr.took_flag is not None else "no flag"
        lines.append(f"Car {cr.car + 1} ({who}): {flag}, {counted(cr.points, 'point')}")
    lines.append("The scores are below.")
    return "\n".join(lines)


def race_text(state: PitFormulaState, names: dict[int, str]) -> str:
    """The race message: the crash card, each car's repairs or flag, spares and flags left."""
    race = state.race
    crash = catalog().crash_cards[race.crash] if race.crash else None
    lines = [
        f"Race {race.number}/{state.settings.races}"
        + (" - **super crash**" if race.super else "")
        + (f": **{crash.name}**" if crash else ""),
    ]
    for i, car in enumerate(state.cars):
        who = " & ".join(shown(names.get(s, f"seat {s}")) for s in car.seats)
        status = (
            f"{FLAG_NAMES[car.flag]} flag"
            if car.flag is not None
            else "retired"
            if car.retired
            else f"to repair: {repairs_text(missing_repairs(car))}"
        )
        lines.append(f"Car {i + 1} ({who}): {status}")
    lines.append(
        f"Spare parts left: {race.spares_left} · "
        f"flags: {race.flags - len(race.flags_taken)} of {race.flags} left"
    )
    return "\n".join(lines)
