"""RF90 state and action models (pydantic, JSON-serialisable; static data stays in catalog)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, TypeAdapter

from rules.base import Action, GameState, Model

RobotType = Literal["slow", "fast", "superfast"]
TyreType = Literal["soft", "hard", "intermediate", "wet"]
Status = Literal["running", "retired", "out of fuel"]
FuelTurn = Literal[8, 10, 12, 14, 16]
FUEL_TURNS: tuple[FuelTurn, ...] = (8, 10, 12, 14, 16)
ROBOT_SEAT = -1  # the pseudo-seat that plays robot cars' turns in a robot-only race


class Setup(Model):
    tyres: int = Field(2, ge=1, le=3)
    wear: int = Field(2, ge=1, le=3)
    cards: int = Field(2, ge=1, le=3)


class Car(Model):
    id: int
    seat: int | None = None
    robot: RobotType | None = None
    name: str
    colour: str | None = None  # the dashboard and miniature (robots: by type)
    skill: str | None = None
    team: str | None = None  # players sharing a team name are teammates (Paddock rule)
    setup: Setup = Setup()
    setup_chosen: bool = True  # False while the seat still has to choose skill and set-up
    hand: list[int] = []
    mulligan_done: bool = False
    qual_card: int | None = None  # face up after the reveal: the target check
    qual_fuel: int | None = None
    qual_value: int | None = None
    qual_check: int | None = None
    fuel_turn: int = 0  # absolute turn of the next mandatory stop (may exceed the race length)
    tyre: TyreType | None = None
    soft_sets: int = 0
    chips: int = 0
    blue: int = 0
    strategy: str | None = None
    damage_red: int = 0
    damage_brown: int = 0
    section: int = 0
    lap: int = 0
    trajectory: str | None = None
    off_track: bool = False
    off_penalty: int = 0
    status: Status = "running"
    out_turn: int | None = None
    mark: Literal["ended", "skipped"] | None = None
    pit_stops: int = 0
    wise_used: bool = False
    robot_pit_due: bool = False
    robot_pitted: bool = False
    robot_weather_pit: TyreType | None = None  # a robot stops again for these tyres
    robot_weather_stops: int = 0  # extra stops made for tyres (at most robots.weather_stops)
    last_mp: int = 0

    @property
    def is_robot(self) -> bool:
        return self.robot is not None

    @property
    def running(self) -> bool:
        return self.status == "running"

    @property
    def damage(self) -> int:
        return self.damage_red + self.damage_brown


class RobotToken(Model):
    robot: RobotType
    value: int
    check: int
    turn: int
    done: bool = False


class Pending(Model):
    """The individual turn in progress of a player's car."""

    car: int
    phase: Literal["A", "B", "E"]
    drawn: list[int] = []
    extreme_ok: bool = False
    trajectory: str | None = None  # the spot the car started the turn on
    start_section: int = 0
    start_lap: int = 0
    ahead_at_start: list[int] = []


class Duel(Model):
    section: int
    order: list[int]  # unmoved cars of the activated section, front first
    asked: list[int] = []  # cars that answered, in asking order (back to front)
    challenger: int | None = None
    joined: list[int] = []
    refused: list[int] = []
    stage: Literal["declare", "cards"] = "declare"
    cards: dict[int, list[int]] = {}


class RF90State(GameState):
    track: str
    race_turns: int | None = None  # a shortened race (Paddock rule); None: the track's own
    phase: Literal["setup", "qualifying", "start", "race", "finished"] = "setup"
    turn: int = 1
    cars: list[Car]
    sections: list[list[int]]
    race_draw: list[int]
    race_discard: list[int] = []
    track_draw: list[int]
    track_discard: list[int] = []
    bag_red: int
    bag_brown: int
    weather: int = 0
    robot_tokens: list[RobotToken] = []
    grid_order: list[int] = []
    start_next: int = 0
    pending: Pending | None = None
    duel: Duel | None = None
    duelled: list[int] = []
    deferred: list[int] = []  # cars in front of the leader in its section at the turn start
    yellow_flags: list[int] = []  # sections showing a yellow flag this game turn
    safety_car_until: int = 0  # the safety car is out while turn <= this
    active_section: int | None = None  # the section being activated (duels once per activation)
    active_leader: int | None = None  # the leader when that activation began (FAS case 2)
    activation: int | None = None  # the section whose activation is in progress (pictures)
    robot_next: int | None = None  # robot-only race: the robot car whose RobotTurn is awaited


# --- actions ----------------------------------------------------------------------------------


class ChooseSetup(Action):
    """Set-up phase: the car's skill and its set-up tokens (points for tyres, wear, cards).

    The numbers are checked by the engine (IllegalAction with a message), not by the model.
    """

    kind: Literal["choose_setup"] = "choose_setup"
    skill: str | None = None
    tyres: int = 2
    wear: int = 2
    cards: int = 2


class Mulligan(Action):
    """Substitute car: swap the whole starting hand once (or keep it)."""

    kind: Literal["mulligan"] = "mulligan"
    swap: bool = False


class Qualify(Action):
    kind: Literal["qualify"] = "qualify"
    card: int
    fuel: FuelTurn


class ChooseStart(Action):
    kind: Literal["choose_start"] = "choose_start"
    tyres: TyreType
    strategy: str


class PitStop(Model):
    extra_sections: int = Field(0, ge=0, le=2)
    tyres: TyreType
    strategy: str | None = None


class OffTrackPay(Model):
    """How to pay off-track costs if the attempt fails: these cards for tyres (the rest with
    chips), and this card for the card symbol. Unset parts are paid automatically."""

    tyre_cards: list[int] = []
    discard: int | None = None


class StartTurn(Action):
    """Phase A declarations, then the phase B draw."""

    kind: Literal["start_turn"] = "start_turn"
    skip: bool = False
    pit: PitStop | None = None
    extreme: bool = False
    wise_driving: list[int] | None = None
    new_strategy: str | None = None
    save_fuel_discard: int | None = None
    off_track_pay: OffTrackPay | None = None  # if the Extreme Trajectory attempt fails


class PlayCards(Action):
    """Phase B play, phase C payment and phase D movement."""

    kind: Literal["play_cards"] = "play_cards"
    cards: list[int] = Field(min_length=1, max_length=2)
    tyre_cards: list[int] = []
    use_trajectory: bool = True
    blue_bonus: bool = False
    sharp_discard: int | None = None  # the card a Sharp Trajectory costs (None: the lowest)
    save_fuel_choice: Literal["track_card", "fuel"] = "track_card"
    balance_damage: bool = False  # Balance bonus: pay one tyre with a damage disc
    unlap: bool = True  # False: stay behind cars on a higher lap rather than unlap yourself
    off_track_pay: OffTrackPay | None = None  # if a green card's check fails in a corner


class EndTurn(Action):
    """Phase E: late braking attempt and trajectory occupation."""

    kind: Literal["end_turn"] = "end_turn"
    late_brake: bool = False
    trajectory: str | None = None
    off_track_pay: OffTrackPay | None = None  # if the late braking attempt fails


class DuelDeclare(Action):
    kind: Literal["duel_declare"] = "duel_declare"
    join: bool


class DuelCards(Action):
    kind: Literal["duel_cards"] = "duel_cards"
    cards: list[int] = Field(default=[], max_length=2)


class RobotTurn(Action):
    """A robot car's whole individual turn, in a race without player seats (seat ROBOT_SEAT)."""

    kind: Literal["robot_turn"] = "robot_turn"
    car: int


RF90Action = Annotated[
    ChooseSetup
    | Mulligan
    | Qualify
    | ChooseStart
    | StartTurn
    | PlayCards
    | EndTurn
    | DuelDeclare
    | DuelCards
    | RobotTurn,
    Field(discriminator="kind"),
]
ACTION_ADAPTER: TypeAdapter[RF90Action] = TypeAdapter(RF90Action)
