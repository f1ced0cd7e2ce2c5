"""Pit Formula settings, state, results and actions (pydantic models, JSON-serialisable)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, TypeAdapter, model_validator

from rules.base import Action, GameState, Model
from rules.errors import BadConfig, PlayerCount
from rules.pitformula.catalog import Repairs

Mode = Literal["standard", "pitcrew", "constructors", "solo", "coop"]

# Table token locations (PitFormulaState.where); a value >= 0 is the car holding the token.
ON_TABLE = -1
DISCARDED = -2  # solo and cooperative discard pile (source: 'Solo Rules', 'Preparing...')
OUT_OF_PLAY = -3  # engine tokens in the basic game (source: 'Basic game')
SPARE_SLOT = -1  # in a card's token list, a spare part


class Skill(Model):
    """A simulated crew's ability (Paddock rule): the mean time for one repair, the chance that
    a repair is wrong, and the chance of repairing an extra part before taking a flag."""

    speed_ms: int = Field(6000, ge=100)
    error_rate: float = Field(0.05, ge=0.0, le=1.0)
    greed: float = Field(0.25, ge=0.0, le=1.0)


_PLAYERS: dict[str, tuple[int, int]] = {
    "standard": (2, 4),
    "pitcrew": (4, 4),
    "constructors": (4, 4),
    "solo": (1, 1),
    "coop": (2, 2),
}


class Settings(Model):
    """Config keys of `new_game` (see docs/rules/pitformula.md, 'Configuration')."""

    mode: Mode = "standard"
    players: int = 4
    races: int = Field(5, ge=1, le=12)
    points_target: int | None = Field(None, ge=1)  # points championship: 40
    super_from_points: int = 30
    standard_score: bool = False
    basic: bool = False
    rival: str = "rookie"
    stopwatch_ms: int | None = Field(None, ge=1000)  # overrides the Rival's stopwatch
    crews: list[list[int]] = []  # seats per car; filled in from the mode when empty
    teams: list[list[int]] = []  # constructors: cars per team
    skills: list[Skill] = []  # simulated crew per seat; Skill() when missing

    @model_validator(mode="after")
    def _fill(self) -> Settings:
        lo, hi = _PLAYERS[self.mode]
        if not lo <= self.players <= hi:
            want = str(lo) if lo == hi else f"{lo} to {hi}"
            raise PlayerCount(
                f"{self.mode.capitalize()} mode is for {want} players, not {self.players}.",
                mode=self.mode,
                least=lo,
                most=hi,
                given=self.players,
            )
        if not self.crews:
            if self.mode == "pitcrew":
                self.crews = [[0, 1], [2, 3]]
            elif self.mode == "coop":
                self.crews = [[0, 1]]
            else:
                self.crews = [[s] for s in range(self.players)]
        seats = sorted(s for crew in self.crews for s in crew)
        if seats != list(range(self.players)) or any(not c for c in self.crews):
            raise BadConfig("The crews must share out every seat exactly once.")
        if self.mode == "constructors":
            if not self.teams:
                self.teams = [[0, 1], [2, 3]]
            cars = sorted(c for team in self.teams for c in team)
            if cars != [0, 1, 2, 3] or any(len(t) != 2 for t in self.teams):
                raise BadConfig("Constructors teams are two pairs of cars.")
        elif self.teams:
            raise BadConfig("Teams are only for constructors mode.")
        return self

    @property
    def solo(self) -> bool:
        return self.mode in ("solo", "coop")

    @property
    def cars(self) -> int:
        return len(self.crews)

    def skill(self, seat: int) -> Skill:
        return self.skills[seat] if seat < len(self.skills) else Skill()


# What each setting takes, in a player's words: a value the model refuses is told this.
SETTING_LIMITS = {
    "mode": "The modes are standard, pitcrew, constructors, solo and coop.",
    "players": "The number of players is a whole number from 1 to 4.",
    "races": "A championship has 1 to 12 races.",
    "points_target": "A points championship is won at 1 point or more.",
    "stopwatch_ms": "The Rival's stopwatch runs for at least a second.",
}


class CardSlot(Model):
    slot: str  # t1 t2 t3 t4 w g e
    card: str  # part card id
    revealed: bool = False
    tokens: list[int] = []  # table slots, SPARE_SLOT for a spare part


class Car(Model):
    seats: list[int]
    score: int = 0
    trophies: list[str] = []
    cards: list[CardSlot]
    required: Repairs = Repairs()
    group: Literal["all", "special", "others"] = "all"
    flag: int | None = None  # flag taken this race: 0 gold, 1 silver, 2 bronze
    retired: bool = False
    done_seq: int | None = None  # when the required repairs were all in place
    last_ms: int = 0


class Race(Model):
    number: int = 1
    crash: str | None = None
    super: bool = False
    flags: int = 1  # flag markers in play
    flags_taken: list[int] = []  # cars, in the order they took them
    spares_left: int = 8
    clock_ms: int = 0
    deadline_ms: int | None = None
    seq: int = 0
    ended_by: Literal["", "flags", "retire", "time_up"] = ""


class CarResult(Model):
    car: int
    took_flag: int | None
    flag: int | None
    penalized: bool
    errors: list[str]  # card slots repaired wrongly
    missing: dict[str, int]  # required repairs left undone
    correct: list[str]
    flag_points: int
    super_bonus: int
    part_points: int
    spares: int
    spare_penalty: int
    points: int


class RivalResult(Model):
    won: bool
    trophy_points: int
    super_bonus: int
    unrepaired_points: int
    error_points: int
    points: int


class RaceResult(Model):
    number: int
    crash: str
    super: bool
    ended_by: str
    trophy: str | None
    flag_values: list[int]
    winner: int | None  # car; None when nobody (or the Rival) won
    unscored_flags: list[int]
    cars: list[CarResult]
    rival: RivalResult | None = None


class PitFormulaState(GameState):
    settings: Settings
    phase: Literal["ready", "repair", "over"] = "ready"
    race: Race
    starter: int = 0  # the car that draws the next crash card
    faces: list[str]  # 70 token faces: part letter + digit, e.g. "T3"
    where: list[int]  # per table slot: ON_TABLE, DISCARDED, OUT_OF_PLAY or a car
    cars: list[Car]
    decks: dict[str, list[str]]  # draw piles (top = last): tyre wing gas engine crash super
    discards: dict[str, list[str]]
    trophy_stack: list[str]
    rival_score: int = 0
    rival_trophies: list[str] = []
    refill_wait: int = 0
    results: list[RaceResult] = []
    moves: int = 0


# --- actions --------------------------------------------------------------------------------


class Timed(Action):
    at_ms: int | None = Field(None, ge=0)  # virtual time since the race's "Go!", from the caller


class Go(Action):
    """Draw the crash card and say "Go!" (the starting player's car)."""

    kind: Literal["go"] = "go"


class Reveal(Timed):
    kind: Literal["reveal"] = "reveal"
    cards: list[str] = Field(min_length=1)


class Fix(Timed):
    """Lay tokens on a card, all at once: `tokens` are coordinates like "b3" or "spare"."""

    kind: Literal["fix"] = "fix"
    card: str
    tokens: list[str] = Field(min_length=1)


class Clear(Timed):
    """Put a card's tokens back on the table (before taking a flag)."""

    kind: Literal["clear"] = "clear"
    card: str


class TakeFlag(Timed):
    kind: Literal["flag"] = "flag"


class Retire(Timed):
    """Stop for this race without taking a flag (Paddock rule)."""

    kind: Literal["retire"] = "retire"


class TimeUp(Timed):
    """Solo and cooperative: the stopwatch ran out (sent by the caller, who keeps time)."""

    kind: Literal["time_up"] = "time_up"


PitFormulaAction = Annotated[
    Go | Reveal | Fix | Clear | TakeFlag | Retire | TimeUp, Field(discriminator="kind")
]
ACTION_ADAPTER: TypeAdapter[Any] = TypeAdapter(PitFormulaAction)
