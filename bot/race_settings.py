"""A league's race settings: how the bot opens its rounds (mode, decision time, sign-up
window, robots, reminder, idle days) and each game's own choices (RF90's tracks, Waddington's
laps...). Kept as JSON on the league, checked here; a round may override the mode and the
game's choices (an RF90 track). Defaults suit an asynchronous league: a day per decision."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from bot.limits import MINUTE
from bot.presenter import duration
from rules.errors import PaddockError

if TYPE_CHECKING:
    from bot.presenter import Presenter
    from store.models import League, Round

# A race night: short decisions for drivers online together (a reminder 30 s before the
# deadline, the table's REMINDER_AT share of it).
LIVE_TURN_MINUTES = 2
MODES = {"async": "asynchronous: a decision a day", "live": "live: a race night, 2 min"}


class RaceSettings(BaseModel):
    """What `/league-admin race-settings` sets (the game's choices in `game`)."""

    model_config = ConfigDict(extra="ignore")

    mode: Literal["async", "live"] = "async"
    turn_minutes: int = Field(1440, ge=1, le=10080)  # asynchronous mode's decision time
    signup_minutes: int = Field(60, ge=5, le=10080)  # how long sign-up stays open
    grid: int = Field(0, ge=0, le=20)  # robots fill the grid up to this many cars (0: none)
    reminder_hours: int = Field(24, ge=0, le=168)  # the round's reminder (0: none)
    idle_days: int = Field(7, ge=1, le=60)
    game: dict[str, Any] = {}

    @classmethod
    def of(cls, league: League) -> RaceSettings:
        try:
            return cls.model_validate(league.race_settings)
        except ValidationError:  # a value stored by an older bot: the defaults stand
            return cls()

    def mode_of(self, rnd: Round) -> str:
        mode = rnd.settings.get("mode", self.mode)
        return mode if mode in MODES else self.mode

    def turn_seconds(self, rnd: Round) -> int:
        minutes = LIVE_TURN_MINUTES if self.mode_of(rnd) == "live" else self.turn_minutes
        return minutes * MINUTE

    def lines(self, presenter: Presenter[Any]) -> list[str]:
        """The settings as an admin reads them, one line each."""
        live = duration(LIVE_TURN_MINUTES * MINUTE)
        lines = [
            f"Mode: live (a race night), {live} per decision"
            if self.mode == "live"
            else f"Mode: asynchronous, {duration(self.turn_minutes * MINUTE)} per decision "
            f"(rounds set live: {live})",
            f"Sign-up: open {self.signup_minutes} min from the round's start, or until every "
            "driver has joined",
            f"Reminder: {self.reminder_hours} h before each round"
            if self.reminder_hours
            else "Reminder: none",
            f"Idle race abandoned after {self.idle_days} day(s)",
        ]
        if presenter.robots_offered:
            lines.append(
                f"Robots fill the grid to {self.grid} cars" if self.grid else "Robots: none"
            )
        lines += presenter.league_choice_lines(self.game)
        return lines


def on_off(text: str, key: str) -> bool:
    """A yes/no choice as typed (`on`/`off`, `yes`/`no`, `true`/`false`)."""
    value = text.strip().lower()
    if value in ("on", "yes", "true", "1"):
        return True
    if value in ("off", "no", "false", "0"):
        return False
    raise PaddockError(f"`{key}` is on or off, e.g. `{key}=on`.")


def parse_choices(text: str, offered: dict[str, str], what: str) -> dict[str, str]:
    """`key=value` pairs as an admin types them (`laps=3, soft_options=on`; a value may hold
    spaces and commas: `tracks=silverstone, barcelona`), each key one of `offered` (its
    help). Refused in one line: a pair without `=`, a key not offered."""
    if not offered:
        raise PaddockError(f"This league's game has no {what} of its own: leave `game` out.")
    marks = list(_KEY.finditer(text))
    if not marks or text[: marks[0].start()].strip(" ,;"):
        example = next(iter(offered.values())).split(" (")[0]
        raise PaddockError(f"Write the game's {what} as `name=value`, e.g. `{example}`.")
    pairs: dict[str, str] = {}
    for i, mark in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        key = mark.group(1).lower()
        if key not in offered:
            names = ", ".join(f"`{k}`" for k in offered) or "none"
            raise PaddockError(f"`{key}` is not one of the game's {what} (they are: {names}).")
        pairs[key] = text[mark.end() : end].strip(" ,;")
    return pairs


def changed(
    current: RaceSettings, presenter: Presenter[Any], values: dict[str, Any], game_text: str | None
) -> RaceSettings:
    """`current` with `values` (the options an admin gave; None: unchanged) and the game's
    own choices typed in `game_text`, checked: the first wrong value refused in one line,
    nothing changed."""
    given = {k: v for k, v in values.items() if v is not None}
    game = dict(current.game)
    if game_text is not None:
        for key, value in parse_choices(game_text, presenter.league_choices, "settings").items():
            game[key] = presenter.league_choice(key, value)
    if "grid" in given and not presenter.robots_offered:
        raise PaddockError(f"{presenter.title} has no robots to fill the grid: leave `grid` out.")
    if "grid" in given and given["grid"] > presenter.max_cars:
        raise PaddockError(f"A {presenter.title} grid has at most {presenter.max_cars} cars.")
    presenter.check_league_choices(game)
    try:
        return RaceSettings.model_validate({**current.model_dump(), **given, "game": game})
    except ValidationError as exc:
        field = str(exc.errors()[0]["loc"][0])
        raise PaddockError(f"`{field}` is out of range: {RANGES.get(field, '')}".strip()) from None


def round_choices(presenter: Presenter[Any], text: str) -> dict[str, Any]:
    """A round's own choices of its game (`track=silverstone`), each checked."""
    pairs = parse_choices(text, presenter.round_choices, "round settings")
    return {k: presenter.round_choice(k, v) for k, v in pairs.items()}


_KEY = re.compile(r"([A-Za-z_]+)\s*=\s*")
RANGES = {
    "turn_minutes": "1 to 10080 minutes.",
    "signup_minutes": "5 to 10080 minutes.",
    "grid": "0 to 20 cars.",
    "reminder_hours": "0 (none) to 168 hours.",
    "idle_days": "1 to 60 days.",
}
