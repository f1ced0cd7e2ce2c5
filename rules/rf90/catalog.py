"""Static RF90 data: the Race deck, both tracks (with their Track decks) and the rule tables.

Loaded once from `rules/rf90/data/*.json`, validated by pydantic models on load and cached.
Nothing here lives in a game state: states name the track and refer to cards by integer id.
Race cards are numbered 1-184; a track's Track cards 501 upwards.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Literal

from pydantic import Field, model_validator

from rules.base import Model
from rules.errors import BadConfig

Colour = Literal["red", "orange", "yellow", "green"]
TRACKS = ("barcelona", "silverstone")
TRACK_CARD_BASE = 500


def _read(name: str) -> dict:
    raw = resources.files("rules.rf90.data").joinpath(name).read_text("utf-8")
    return json.loads(raw)


# --- cards ------------------------------------------------------------------------------------


class Card(Model):
    id: int
    deck: Literal["race", "track"]
    colour: Colour
    mp: int = Field(ge=1, le=4)
    check_factor: int = Field(ge=1, le=99)
    tyres: int = 0
    damage: int = 0
    draw: int = 0
    check: bool = False
    weather: int = 0
    pair: bool = False
    flag: bool = False  # yellow-flag symbol

    @property
    def label(self) -> str:
        extra = "".join(
            [
                f" T{self.tyres}" if self.tyres else "",
                f" D{self.damage}" if self.damage else "",
                f" +{self.draw}card" if self.draw else "",
                " check" if self.check else "",
                " rain" if self.weather > 0 else " sun" if self.weather < 0 else "",
                " pair" if self.pair else "",
                " flag" if self.flag else "",
            ]
        )
        name = "Track" if self.deck == "track" else self.colour
        return (
            f"{name} {self.colour if self.deck == 'track' else ''}+{self.mp}".replace("  ", " ")
            + f" ({self.check_factor}){extra}"
        )


class RaceKind(Model):
    colour: Colour
    mp: int
    tyres: int
    damage: int
    draw: int
    check: bool
    weather: int
    check_factors: list[int]
    yellow_flags: int = Field(0, ge=0)


class TrackKind(Model):
    colour: Colour
    mp: int
    pair: bool
    check: bool = False
    check_factors: list[int]


class DeckSpec(Model):
    source: str
    kinds: list[RaceKind] | list[TrackKind]


# --- tracks -----------------------------------------------------------------------------------


class Cost(Model):
    tyres: int = Field(0, ge=0)
    damage: int = Field(0, ge=0)
    cards: int = Field(0, ge=0)


class Corner(Model):
    number: int
    name: str
    duel_modifiers: list[int]
    source: str


class Trajectory(Model):
    id: str
    kind: Literal["normal", "sharp", "extreme"]
    colours: list[Colour] = Field(min_length=1, max_length=2)
    bonus: int = Field(ge=1)
    cost: Cost
    target: int | None
    xy: tuple[float, float]
    source: str

    @model_validator(mode="after")
    def _check(self) -> Trajectory:
        if self.kind == "extreme" and self.target is None:
            raise ValueError(f"extreme trajectory {self.id} needs a target")
        if self.kind != "extreme" and self.target is not None:
            raise ValueError(f"only extreme trajectories have a target ({self.id})")
        if self.kind == "normal" and (len(self.colours) > 1 or self.cost != Cost()):
            raise ValueError(f"a normal trajectory has one colour and no cost ({self.id})")
        if self.kind == "sharp" and len(self.colours) == 1 and self.cost == Cost():
            raise ValueError(f"a sharp trajectory has two colours or a cost ({self.id})")
        return self


class LateBrake(Model):
    target: int = Field(ge=1, le=99)
    source: str


class OffTrack(Model):
    cost: Cost
    reentry: int
    penalty: int = Field(ge=0)
    source: str


class Section(Model):
    index: int
    kind: Literal["straight", "curve", "braking"]
    capacity: int = Field(ge=1, le=6)
    name: str
    corner: Corner | None
    trajectories: list[Trajectory]
    late_brake: LateBrake | None
    off_track: OffTrack | None
    grid: bool
    polygon: list[tuple[float, float]] = Field(min_length=3)
    slots: list[tuple[float, float]]
    label: tuple[float, float]
    source: str

    @model_validator(mode="after")
    def _check(self) -> Section:
        if (self.kind == "curve") != (self.corner is not None):
            raise ValueError(f"section {self.index}: curves, and only curves, name a corner")
        if self.corner and len(self.corner.duel_modifiers) != self.capacity:
            raise ValueError(f"section {self.index}: one duel modifier per slot")
        if self.corner and self.corner.duel_modifiers[0] != 0:
            raise ValueError(f"section {self.index}: the first car in a duel has no modifier")
        if len(self.slots) != self.capacity:
            raise ValueError(f"section {self.index}: one slot centre per car")
        if self.late_brake and self.kind != "braking":
            raise ValueError(f"section {self.index}: late brake points are in braking sections")
        return self


class Track(Model):
    id: str
    name: str
    source: str
    race_turns: int = Field(ge=5)
    race_turns_source: str
    laps: int
    stages: list[int]
    pit_sections: int = Field(ge=1)
    pit_source: str
    canvas: tuple[int, int]
    sections: list[Section]
    track_deck: DeckSpec

    @model_validator(mode="after")
    def _check(self) -> Track:
        n = len(self.sections)
        for i, s in enumerate(self.sections):
            if s.index != i:
                raise ValueError(f"{self.id}: sections out of order at {i}")
            if s.off_track and not 0 <= s.off_track.reentry < n:
                raise ValueError(f"{self.id}: section {i} re-enters outside the track")
            if s.late_brake and self.sections[(i + 1) % n].kind != "curve":
                raise ValueError(f"{self.id}: late brake at {i} is not before a curve")
        corners = [s.corner.number for s in self.sections if s.corner]
        if corners != list(range(1, len(corners) + 1)):
            raise ValueError(f"{self.id}: corners must be numbered 1.. in track order")
        ids = [t.id for s in self.sections for t in s.trajectories]
        if len(ids) != len(set(ids)):
            raise ValueError(f"{self.id}: duplicate trajectory ids")
        grid = [s.index for s in self.sections if s.grid]
        if not grid or grid[-1] != n - 1:
            raise ValueError(f"{self.id}: the grid is the sections just before the finish line")
        if self.stages[0] != 1 or self.stages != sorted(self.stages):
            raise ValueError(f"{self.id}: stages start at turn 1, in order")
        return self

    @property
    def length(self) -> int:
        return len(self.sections)

    def grid_sections(self) -> list[int]:
        """Grid sections front to back (the last sections before the finish line)."""
        return [s.index for s in reversed(self.sections) if s.grid]

    def trajectory(self, tid: str) -> Trajectory:
        return self._trajectories()[tid][1]

    def trajectory_section(self, tid: str) -> int:
        return self._trajectories()[tid][0]

    def _trajectories(self) -> dict[str, tuple[int, Trajectory]]:
        return _traj_index(self.id)

    def stage(self, turn: int) -> int:
        return sum(1 for s in self.stages if s <= turn)

    def laps_done(self, turn: int) -> int:
        return round(turn * self.laps / self.race_turns)

    def next_corner(self, index: int) -> Section | None:
        nxt = self.sections[(index + 1) % self.length]
        return nxt if nxt.corner else None


# --- rule tables ------------------------------------------------------------------------------


class SetupTable(Model):
    source: str
    tyres: dict[int, int]
    wear: dict[int, int]
    cards: dict[int, int]
    points: int
    tuning_points: int
    max_per_category: int
    extra_starting_cards: int
    extra_starting_cards_source: str


class TyreKind(Model):
    chips: int
    blue: int
    track_cards: int
    max_sets: int | None = None


class TyreTable(Model):
    source: str
    soft: TyreKind
    hard: TyreKind
    intermediate: TyreKind
    wet: TyreKind

    def get(self, name: str) -> TyreKind:
        return getattr(self, name)


class WeatherSpace(Model):
    name: str
    state: Literal["dry", "uncertain", "rain"]
    closest: Literal["dry", "middle", "rain"] | None = None


class WeatherTable(Model):
    source: str
    spaces: list[WeatherSpace]
    modifiers: dict[str, dict[str, int]]

    def space_for(self, check_factor: int) -> int:
        return (check_factor - 1) * len(self.spaces) // 99


class DamageBag(Model):
    source: str
    by_players: dict[int, tuple[int, int]]


class FuelToken(Model):
    value: int
    check: int
    turn: int


class RobotTable(Model):
    source: str
    by_players: dict[int, dict[str, int]]
    speed: dict[str, int]
    corner_bonus: dict[str, int]
    fuel_tokens: dict[str, list[FuelToken]]
    weather_stops: int = 1
    weather_stops_source: str = ""
    colours: dict[str, str]


class RobotField(Model):
    """The robot data of one field (a track and a number of player seats) that differs from
    `rules.json`'s robots: the robot speeds and corner bonuses, and how often robots run wide
    (`off_track.robot_mistake_from`). Paddock rule, tuned by simulation (docs/rules/rf90.md,
    "Balance")."""

    speed: dict[str, int] = Field(default_factory=dict)
    corner_bonus: dict[str, int] = Field(default_factory=dict)
    mistake_from: int | None = Field(default=None, ge=1, le=100)


class RobotBalance(Model):
    """`robot_balance.json`: per track, per number of player seats (1-6), the robot data that
    makes a strong seat beat the SuperFast robots in 30-50% of races (Paddock rule)."""

    source: str
    method: str
    fields: dict[str, dict[int, RobotField]]

    @model_validator(mode="after")
    def _known(self) -> RobotBalance:
        for name, by_players in self.fields.items():
            if name not in TRACKS:
                raise ValueError(f"robot_balance: unknown track {name!r}")
            for n, f in by_players.items():
                if not 1 <= n <= 6:
                    raise ValueError(f"robot_balance: {name} has {n} player seats (1-6)")
                for robot in (*f.speed, *f.corner_bonus):
                    if robot not in ("slow", "fast", "superfast"):
                        raise ValueError(f"robot_balance: unknown robot {robot!r}")
        return self


class FuelTable(Model):
    source: str
    turns: dict[int, int]
    per_stop: int
    per_extra_section: int
    max_extra_sections: int


class Strategy(Model):
    id: str
    name: str
    bonus: str
    special: str
    source: str


class Skill(Model):
    id: str
    name: str
    text: str
    source: str


class LappingTable(Model):
    source: str
    fail_mp: int = Field(ge=0)
    skill_fail_mp: int = Field(ge=0)
    robot_mp: int = Field(ge=0)
    lapped_car_yields: bool = True
    lapped_car_yields_source: str = ""


class DamageEffectTable(Model):
    source: str
    spaces_left: int = Field(ge=0)
    mp_penalty: int = Field(ge=0)
    check_per_brown: int = Field(0, ge=0)
    check_per_brown_source: str = ""


class FlagTable(Model):
    source: str
    safety_car_turns: int = Field(ge=0)
    safety_car_max_mp: int = Field(ge=0)


class TeamTable(Model):
    source: str
    max_cars: int = Field(ge=1)


class SkippedCarTable(Model):
    source: str
    overtaken_on_entry: bool


class OffTrackRules(Model):
    source: str
    green_check_in_corner: bool
    robot_mistake_from: int = Field(ge=1, le=100)  # 100: robots never make a mistake


class StageEventTable(Model):
    source: str
    weather_steps: int = Field(ge=0)
    flag_safety_car: bool


class RuleTables(Model):
    setup: SetupTable
    tyres: TyreTable
    weather: WeatherTable
    damage_bag: DamageBag
    robots: RobotTable
    fuel: FuelTable
    lapping: LappingTable
    flags: FlagTable
    stage_events: StageEventTable
    skipped_cars: SkippedCarTable
    off_track: OffTrackRules
    teams: TeamTable
    damage_effects: DamageEffectTable
    strategies: list[Strategy] = Field(min_length=10, max_length=10)
    skills: list[Skill]


# --- loading ----------------------------------------------------------------------------------


@cache
def tables() -> RuleTables:
    return RuleTables.model_validate(_read("rules.json"))


@cache
def robot_balance() -> RobotBalance:
    return RobotBalance.model_validate(_read("robot_balance.json"))


def race_tables(track_name: str, players: int) -> RuleTables:
    """The rule tables of a race at `track_name` with `players` player seats: `tables()` with
    that field's robot speeds, corner bonuses and robot mistakes (`robot_balance.json`; 0 player
    seats count as 1, as for the robots' numbers)."""
    return _race_tables(track_name, max(1, min(players, 6)))


@cache
def _race_tables(track_name: str, players: int) -> RuleTables:
    base = tables()
    field = robot_balance().fields.get(track_name, {}).get(players)
    if field is None:
        return base
    robots = base.robots.model_copy(
        update={
            "speed": {**base.robots.speed, **field.speed},
            "corner_bonus": {**base.robots.corner_bonus, **field.corner_bonus},
        }
    )
    off_track = base.off_track
    if field.mistake_from is not None:
        off_track = off_track.model_copy(update={"robot_mistake_from": field.mistake_from})
    return base.model_copy(update={"robots": robots, "off_track": off_track})


@cache
def race_deck() -> dict[int, Card]:
    spec = _read("race_deck.json")
    out: dict[int, Card] = {}
    for kind in spec["kinds"]:
        k = RaceKind.model_validate(kind)
        for i, cf in enumerate(k.check_factors):
            cid = len(out) + 1
            out[cid] = Card(
                id=cid,
                deck="race",
                colour=k.colour,
                mp=k.mp,
                check_factor=cf,
                tyres=k.tyres,
                damage=k.damage,
                draw=k.draw,
                check=k.check,
                weather=k.weather,
                flag=i >= len(k.check_factors) - k.yellow_flags,
            )
    if len(out) != 184:
        raise ValueError(f"the Race deck has {len(out)} cards, not 184")
    return out


@cache
def _full_track(name: str) -> Track:
    if name not in TRACKS:
        raise BadConfig(f"There is no track called {name!r}: the tracks are {', '.join(TRACKS)}.")
    return Track.model_validate(_read(f"track_{name}.json"))


MIN_RACE_TURNS = 3  # a shortened race (Paddock rule, `race_turns` in the race configuration)


@cache
def track(name: str, race_turns: int | None = None) -> Track:
    """The track as raced: `race_turns` shortens the race (Paddock rule: the sources give each
    track one race length). Its stages and laps shrink in proportion; None is the full race."""
    full = _full_track(name)
    if race_turns is None or race_turns == full.race_turns:
        return full
    if not MIN_RACE_TURNS <= race_turns <= full.race_turns:
        raise BadConfig(
            f"A race at {full.name} lasts {MIN_RACE_TURNS} to {full.race_turns} game turns, "
            f"not {race_turns}."
        )
    share = race_turns / full.race_turns
    stages = sorted({1 + round((s - 1) * share) for s in full.stages})
    return full.model_copy(
        update={
            "race_turns": race_turns,
            "laps": max(1, round(full.laps * share)),
            "stages": stages,
        }
    )


@cache
def track_deck(name: str) -> dict[int, Card]:
    out: dict[int, Card] = {}
    for kind in track(name).track_deck.kinds:
        assert isinstance(kind, TrackKind)
        for cf in kind.check_factors:
            cid = TRACK_CARD_BASE + len(out) + 1
            out[cid] = Card(
                id=cid,
                deck="track",
                colour=kind.colour,
                mp=kind.mp,
                check_factor=cf,
                pair=kind.pair,
                check=kind.check,
            )
    return out


@cache
def cards(name: str) -> dict[int, Card]:
    """Every card of a race on this track: the Race deck and the track's Track deck."""
    return {**race_deck(), **track_deck(name)}


@cache
def _traj_index(name: str) -> dict[str, tuple[int, Trajectory]]:
    return {t.id: (s.index, t) for s in track(name).sections for t in s.trajectories}


@cache
def _names() -> dict[str, str]:
    rows: list[Skill | Strategy] = [*tables().skills, *tables().strategies]
    names = {row.id: row.name for row in rows}
    if len(names) != len(rows):
        raise ValueError("rules.json: a skill and a strategy share an id")
    return names


def name(catalogue_id: str | None, default: str = "-") -> str:
    """What players call a skill or a strategy: its name in the rules, never its id
    (`rain_expert` is "Rain Expert"); `default` for none."""
    if catalogue_id is None:
        return default
    return _names().get(catalogue_id, catalogue_id)


def strategy_ids() -> list[str]:
    return [s.id for s in tables().strategies]


def skill_ids() -> list[str]:
    return [s.id for s in tables().skills]
