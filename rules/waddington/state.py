"""State and action models of Waddington's Formula 1 (pydantic, JSON round-trip safe)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, TypeAdapter

from rules.base import Action, GameState, Model

Square = tuple[int, int]


LEAGUE_LAPS = 5  # §O rule 57: the league races are "over 5 laps"
FRIENDLY_LAPS = 3  # Paddock rule: a shorter race when no league is named


def default_laps(league: bool) -> int:
    """The laps of a race whose host did not choose: the league's 5 laps (rule 57), else 3."""
    return LEAGUE_LAPS if league else FRIENDLY_LAPS


class Settings(Model):
    """Race settings chosen when the race is created (the `config` of new_game)."""

    laps: int = FRIENDLY_LAPS
    soft_tactic_after_dice: bool = False  # player note: throw first, then play a card if ok
    soft_spin_tyres: bool = False  # player note: 2 tyre wear instead of spinning on 3 or 11
    more_than_six: bool = False  # player note: grids of more than six cars (up to 8)
    # Paddock rule: the after-move Tactic card window opens on public facts alone (the car
    # holds a card and could play one), not on whether a card in the hand is playable, and
    # `proceed` comes first among its actions. Paddock starts every race with it; False
    # only in races started before it existed (their logs replay as they were played).
    public_card_window: bool = False


class Car(Model):
    seat: int
    name: str
    robot: bool = False
    number: int
    colour: str
    # position: row and lane on the circuit; lane -1 = own pit, lane 3 = off the track (spin)
    row: int
    lane: int
    dist: int  # rows travelled since row 0 of the first lap (laps done = dist // length)
    spun_at: str | None = None  # corner name, or "verge" after a baulking spin
    speed: int = 0
    tyre: int = 0
    brake: int = 0
    hand: list[str] = []
    status: Literal["running", "retired"] = "running"
    turns: int = 0
    lose_turns: int = 0
    burst: bool = False  # Pit card: may set up to 120 mph on leaving
    special_brakes: bool = False  # Pit card: next reduction costs nothing
    retired_round: int | None = None


class Crossing(Model):
    """A red band crossed above its safety speed during this turn, waiting for the dice."""

    row: int
    lane: int
    corner: str
    safety: int
    speed: int  # the speed the car crossed the band at (before any baulking, §K rules 42-43)
    dist: int  # the car's distance when it entered the band row
    worn: bool = False  # tyre wear gauge at its maximum of 8 when the band was crossed


class TurnState(Model):
    seat: int
    phase: Literal["speed", "move", "after_move", "spin_choice"] = "speed"
    start_speed: int = 0
    start_dist: int = 0
    superb: bool = False
    card_played: bool = False
    window_done: bool = False
    pit: bool = False
    spun: bool = False
    pending: list[Crossing] = []
    verge_spin: bool = False  # baulked beyond the bands and cannot brake: spins after the dice
    choice: Crossing | None = None  # the crossing whose 3/11 spin awaits the soft choice
    throw: list[int] = []


class WaddingtonState(GameState):
    circuit: str = "paddock-park"
    settings: Settings = Settings()
    cars: list[Car]
    order: list[int]  # seats in moving order (by colour, §F rule 19)
    start_throws: list[list[int]] = []  # rule 7: each round of throws, one total per seat
    round: int = 1
    turn_index: int = 0  # index into order
    turn: TurnState | None = None
    pit_deck: list[str] = []
    tactic_undealt: list[str] = []
    tactic_used: list[str] = []
    first_finish_round: int | None = None
    over: bool = False
    actions: int = 0


# --- actions ------------------------------------------------------------------------------


class SetSpeed(Action):
    """Set the speedometer for this move (multiples of 20 mph)."""

    kind: Literal["set_speed"] = "set_speed"
    speed: int


class Move(Action):
    """Move to one of the offered end squares (see `destinations`). Lane -1 is your own pit.

    `raise_to_match`: when baulked by a faster car, raise your speed to its speed (§K rule 43).
    """

    kind: Literal["move"] = "move"
    to: Square
    raise_to_match: bool = False


class PlayTactic(Action):
    """Play a Tactic card from your hand; extra-move cards name their end square in `to`."""

    kind: Literal["play_tactic"] = "play_tactic"
    card: str
    to: Square | None = None


class Proceed(Action):
    """Play no Tactic card now: throw the dice for the corners (if any) and end the move."""

    kind: Literal["proceed"] = "proceed"


class SoftSpin(Action):
    """Soft option: after a throw of 3 or 11, take 2 tyre wear instead of spinning."""

    kind: Literal["soft_spin"] = "soft_spin"
    take_tyre_wear: bool


class Retire(Action):
    """Withdraw the car from the race."""

    kind: Literal["retire"] = "retire"


WaddingtonAction = Annotated[
    SetSpeed | Move | PlayTactic | Proceed | SoftSpin | Retire, Field(discriminator="kind")
]
ACTION_ADAPTER: TypeAdapter[WaddingtonAction] = TypeAdapter(WaddingtonAction)
