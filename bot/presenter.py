"""What a game brings to the table layer (boardgame.io's game config, our framework's half).

A presenter says how its game looks in Discord: its settings, the prompt and buttons for the
seat to act, its images, its event lines and its finish. It never stores, locks, times or
posts anything itself: `bot.table.Table` does that for every game alike.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, TypeVar

import discord

from bot.components import shown
from bot.feed import Feed
from bot.limits import DAY, HOUR, MINUTE
from rules.base import Event, Game, GameState, get_game
from rules.errors import BadConfig
from store.models import GameRecord, Round, Seat, TimerSpec

if TYPE_CHECKING:
    import asyncio

    from rules.base import Action
    from store.play import Played

REMINDER_AT = 0.75  # share of the time limit after which the driver is reminded once

# The game's state type: a presenter and the games it is given agree on it (the table layer,
# which serves every game, leaves it open).
S = TypeVar("S", bound=GameState)


@dataclass
class Loaded(Generic[S]):
    """One read of a game: the row, the rules, the state and the seats. What a click needs
    of it is worked out once per read: each seat's legal actions and act token (`options`,
    `memo`), however many parts of the table ask (a new state is a new `Loaded`)."""

    record: GameRecord
    game: Game[Any]
    state: S
    seats: dict[int, Seat]
    last_board: S | None = None  # the state the thread's last board showed, if known
    feed: Feed = field(default_factory=Feed)  # what the live prompt carries (bot/feed.py)
    memo: dict[Any, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def id(self) -> int:
        return self.record.id

    def options(self, seat: int) -> list[Action]:
        """The seat's legal actions in this state, computed once (the engine's order: a
        button's index points into it)."""
        key = ("options", seat)
        if key not in self.memo:
            self.memo[key] = self.game.legal_actions(self.state, seat)
        options: list[Action] = self.memo[key]
        return options

    def human_seat(self, user_id: int) -> Seat | None:
        """The seat this user drives (not one handed to a robot)."""
        for seat in self.seats.values():
            if seat.user_id == user_id and not seat.robot:
                return seat
        return None

    def name(self, seat: int) -> str:
        return self.seats[seat].name if seat in self.seats else f"seat {seat}"


@dataclass
class Decision(Generic[S]):
    """What one user may decide now, read once for their click: the game as read (row,
    state, seats), their seat, its legal actions and the act token its buttons carry."""

    loaded: Loaded[S]
    seat: int
    options: list[Action]
    token: str


@dataclass
class Frame(Generic[S]):
    """A moment inside an action worth a picture (an RF90 section activation ended): the
    state then, and the events that led to it since the previous frame."""

    label: Any
    state: S
    events: list[Event]
    seats: set[int] = field(default_factory=set)  # the seats that acted in it


@dataclass
class Image:
    """A PNG drawn off the event loop when the message is sent, in an image worker process
    (bot/drawing.py): `draw` is sent there, so it is picklable - a `functools.partial` of a
    renderer function and its arguments, not a lambda or a local function."""

    filename: str
    draw: Callable[[], bytes]


@dataclass
class Prompt:
    """The public message asking one seat to act: text, buttons and images."""

    content: str
    items: list[discord.ui.Item[Any]] = field(default_factory=list)
    images: list[Image] = field(default_factory=list)
    pings: list[int] = field(default_factory=list)  # the users this prompt means to ping


class TablePort(Protocol):
    """What a presenter may ask of the table layer (bot/table/): the game, its lock and
    thread, and the table's own way of playing an action and telling the thread."""

    async def load(self, game_id: int) -> Loaded[Any]: ...

    async def decision(
        self, interaction: discord.Interaction, presenter: Presenter[Any], game_id: int
    ) -> Decision[Any]: ...

    def lock(self, game_id: int) -> asyncio.Lock: ...

    async def channel_of(self, record: GameRecord) -> Any: ...

    def acting_seat(self, loaded: Loaded[Any], user_id: int) -> int: ...

    async def commit(
        self,
        loaded: Loaded[Any],
        action: Action,
        actor: str,
        *,
        by_robot: bool = False,
        human: bool = False,
    ) -> tuple[Loaded[Any], Played]: ...

    async def advance(
        self,
        loaded: Loaded[Any],
        events: list[Event],
        *,
        key_before: Any,
        start: bool = False,
        notes: list[str] | None = None,
    ) -> Loaded[Any]: ...

    async def publish(
        self, loaded: Loaded[Any], events: list[Event], *, key_before: Any
    ) -> None: ...

    async def act_index(
        self,
        interaction: discord.Interaction,
        presenter: Presenter[Any],
        game_id: int,
        token: str,
        index: int,
        *,
        done: str = "Played.",
        answered: bool | None = None,
    ) -> None: ...

    async def recovered_events(self, loaded: Loaded[Any]) -> list[Event]: ...


class Presenter(Generic[S]):
    """A game's look in Discord. Subclasses set the class variables and override what
    differs; the defaults suit a turn-based race in a thread."""

    kind: ClassVar[str]  # the rules package's name
    area: ClassVar[str]  # the command group and the custom_id area
    title: ClassVar[str]
    noun: ClassVar[str] = "race"
    min_players: ClassVar[int] = 2  # cars on the grid, robots included
    max_players: ClassVar[int] = 6  # people in the lobby
    max_cars: ClassVar[int] = 6
    in_thread: ClassVar[bool] = True  # False: played in the channel itself
    turn_timers: ClassVar[bool] = True  # a reminder and a timeout for each move
    robots_drive: ClassVar[bool] = True  # False: no turns a robot could take (real time)
    rewinds: ClassVar[bool] = True  # an admin may rewind it to an earlier action (False: real time)
    play_forced: ClassVar[bool] = False  # a decision with one legal action plays itself
    colours: ClassVar[list[str]] = []  # colours a driver picks in the lobby (none: no choice)
    default_idle_days: ClassVar[int] = 7
    robots_offered: ClassVar[bool] = False  # the lobby adds robots (a "robots" setting)
    # A game whose drivers never take a decision back (e.g. played in real time): the one
    # line `/<game> undo` answers, saying what they may do instead; None: the rules decide
    # (Game.undo_refusal, bot/table/undo.py).
    undo_refused: ClassVar[str | None] = None
    # Its own league race settings (name: an example an admin is offered as they type), and
    # those a single round may change.
    league_choices: ClassVar[dict[str, str]] = {}
    round_choices: ClassVar[dict[str, str]] = {}

    @property
    def game(self) -> Game[Any]:
        return get_game(self.kind)

    def plays_forced(self, state: Any) -> bool:
        """Whether a decision with one legal action here plays itself (`play_forced`); a
        game says no where the number of choices depends on a hand, since playing it without
        asking would tell the thread about the cards."""
        return self.play_forced

    # Lobby and start -------------------------------------------------------------------

    def lobby_lines(self, record: GameRecord) -> list[str]:
        """The lobby's settings, one line each."""
        return []

    def robot_name(self, index: int) -> str:
        return f"Robot {index + 1}"

    # A league round the bot opens (bot/table/rounds.py) --------------------------------

    def league_choice(self, key: str, text: str) -> Any:
        """One of `league_choices` as typed, as kept (PaddockError, one line: a bad value)."""
        return text

    def round_choice(self, key: str, text: str) -> Any:
        """One of `round_choices` as typed, as kept (PaddockError, one line: a bad value)."""
        return text

    def check_league_choices(self, choices: dict[str, Any]) -> None:
        """Refuse (PaddockError, one line) a league's choices of `league_choices` this game
        cannot race."""

    def league_choice_lines(self, choices: dict[str, Any]) -> list[str]:
        """The league's choices as an admin reads them, one line each."""
        return []

    def league_round_settings(self, choices: dict[str, Any], rnd: Round) -> dict[str, Any]:
        """This game's settings of a league round's race the bot opens, as `/<area> new`
        would make them, from the league's `choices` and the round's overrides (the table
        adds the time limit, the drivers, robots and title)."""
        return {}

    def rules_config(self, record: GameRecord, seats: list[Seat]) -> dict[str, Any]:
        """The rules config made at the start from the lobby's settings and seats."""
        raise NotImplementedError

    def config_refusal(
        self, error: BadConfig, settings: dict[str, Any], *, lobby: bool = True
    ) -> str:
        """What a player reads when the rules refuse the config made from these settings:
        what to do about it, in the lobby (`lobby`) or in the command that named the
        players. By default the rules' own words."""
        return error.message

    def start_lines(self, loaded: Loaded[S]) -> list[str]:
        """What the thread is told when the race starts."""
        return []

    # The race --------------------------------------------------------------------------

    def waiting_seats(self, state: S) -> list[int]:
        """The seats the game waits for now: one in turn, several for simultaneous picks
        (e.g. qualification), none when it is over."""
        return self.game.to_act(state)

    def acting_seat(self, state: S) -> int | None:
        """The first seat the game waits for (None when nobody's, e.g. the game is over)."""
        waiting = self.waiting_seats(state)
        return waiting[0] if waiting else None

    def holds_lines(self, state: S) -> bool:
        """Whether the move under way is a simultaneous pick (every seat decides at once):
        then what a pick did is told only when the last seat has picked, all together, so
        that nobody can adapt to another's choice (bot/feed.py)."""
        return False

    def act_token(self, loaded: Loaded[S], seat: int) -> str:
        """What an `act` button carries besides the action's index, checked at the click: by
        default the sequence number (any later action makes the button stale). A game with
        simultaneous picks makes it depend on the seat's own options only."""
        return str(loaded.record.seq)

    def move_key(self, state: S) -> Hashable:
        """What identifies the move under way: a change means a move was completed (one
        board per completed move; sub-steps of a move edit its prompt)."""
        return self.acting_seat(state)

    def confirmation(self, loaded: Loaded[S], seat: int, action: Any) -> str | None:
        """The question `seat`'s driver is asked before `action` is played, in the game's own
        words, when it is a costly decision: one that can't be undone and changes the race
        (retiring, a pit stop...). The table asks it first, with Confirm and Cancel, unless
        the driver turned that off (`/games confirm:off`; bot/table/confirm.py). None (the
        default, and every decision of a real-time game): played at once."""
        return None

    def summary(self, loaded: Loaded[S]) -> str:
        """One line on where the race is."""
        return f"{self.title} #{loaded.id}"

    def race_timers(self, state: S, now: float) -> list[TimerSpec]:
        """Timers of the game's own armed with the action that makes them due (e.g. a
        stopwatch), besides the table's turn and idle timers."""
        return []

    def apply(
        self, game: Game[Any], state: GameState, action: Any
    ) -> tuple[GameState, list[Event], list[tuple[Any, GameState, int]]]:
        """How the table applies an action: the rules' apply, and the moments worth a picture
        along the way as (label, state, how many of the events had happened); none by
        default."""
        new_state, events = game.apply(state, action)
        return new_state, events, []

    def frame_images(self, loaded: Loaded[S], frame: Frame[S]) -> list[Image]:
        """The pictures of one frame (an RF90 section activation)."""
        return []

    def frame_caption(self, frame: Frame[S]) -> list[str]:
        """A line naming the frame, for a message whose own lines do not (its opening was
        told in an earlier message); none by default."""
        return []

    def frame_shown(self, loaded: Loaded[S], frame: Frame[S]) -> bool:
        """Whether this frame gets its own message; the lines of one that does not open the
        next message (a race setting may keep the thread to the moments people act in)."""
        return True

    def event_lines(self, events: list[Event]) -> list[str]:
        # event texts name drivers as they typed their names: shown escaped
        return [shown(e.text) for e in events if e.text]

    def board(self, loaded: Loaded[S], highlight: int | None) -> Image | list[Image] | None:
        """The image(s) posted once per completed move (None: text only)."""
        return None

    def prompt(self, loaded: Loaded[S], seats: list[int], deadline: float | None) -> Prompt:
        """The public prompt for the seats to act, its buttons offering only legal actions
        (and nothing that depends on a hand)."""
        raise NotImplementedError

    def finish(self, loaded: Loaded[S]) -> tuple[list[str], Image | None]:
        """The classification lines and image of a finished race."""
        raise NotImplementedError

    # Hooks for games that do not play move by move (Pit Formula) -----------------------

    async def on_button(
        self,
        table: TablePort,
        interaction: discord.Interaction,
        game_id: int,
        action: str,
        arg: str,
    ) -> bool:
        """A game's own button; False when the action is not one of its own."""
        return False

    def answered_first(self, action: str) -> str | None:
        """How the table answers a game's own button before it reads the game: "private"
        (a "thinking…" only its user sees, which the result replaces), "update" (deferred:
        the message it sits on is edited through the answer), or None (the button answers
        itself, once it has read the race)."""
        return None

    async def begin(self, table: TablePort, loaded: Loaded[S]) -> None:
        """Right after the start was stored: post the start and the first prompt."""
        await table.advance(loaded, [], key_before=None, start=True)

    async def repost(self, table: TablePort, loaded: Loaded[S]) -> None:
        """`/<game> status`: the race as it stands, with the prompt at the bottom."""
        await table.publish(loaded, [], key_before=None)

    async def recover(self, table: TablePort, loaded: Loaded[S]) -> None:
        """At start-up, for a game whose last action did not reach the thread."""
        await table.advance(loaded, await table.recovered_events(loaded), key_before=None)


def timestamp(unix: float, style: str = "R") -> str:
    """A Discord timestamp, shown in each reader's own time zone."""
    return f"<t:{int(unix)}:{style}>"


def duration(seconds: float) -> str:
    seconds = int(seconds)
    if seconds >= DAY and seconds % HOUR == 0:
        hours = seconds // HOUR
        return f"{hours // 24} day{'s' if hours // 24 != 1 else ''}" + (
            f" {hours % 24} h" if hours % 24 else ""
        )
    if seconds >= HOUR:
        return f"{seconds // HOUR} h {seconds % HOUR // MINUTE:02d} min"
    return f"{max(1, seconds // MINUTE)} min"
