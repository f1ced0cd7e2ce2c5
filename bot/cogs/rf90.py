"""`/rf90`: Race! Formula 90 league races, played asynchronously in a thread.

The table layer (bot/table.py) runs the lobby, timers, robots, recovery and the finish; this
module is the game's presenter and commands. The engine decides; here the drivers it waits
for are pinged in public with one button (the same for everyone, so nothing public depends on
a hand), which opens their private cockpit: the hand and dashboard, and the engine's legal
actions asked as a few short questions (bot/choices.py).
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import json
from collections.abc import Hashable
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot.autocomplete import league_option
from bot.choices import PAGE, Facet, decode, encode, narrow
from bot.cogs.table_commands import TableCog
from bot.components import button, shown, view_of
from bot.league_tables import league_round_for_game
from bot.posting import defer, think
from bot.presenter import (
    Frame,
    Image,
    Loaded,
    Presenter,
    Prompt,
    TablePort,
    duration,
    timestamp,
)
from bot.table import draw
from bot.table.core import MENTION_NONE
from bot.table.ending import ending
from renderer.common import counted
from renderer.rf90 import (
    render_classification,
    render_closeup,
    render_cockpit,
    render_dashboards,
    render_track,
)
from renderer.rf90_replay import render_replay
from rules.errors import PaddockError
from rules.rf90 import (
    GAME,
    ChooseSetup,
    ChooseStart,
    DuelCards,
    DuelDeclare,
    EndTurn,
    Mulligan,
    PlayCards,
    Qualify,
    RF90State,
    StartTurn,
    catalog,
    decisions,
)
from rules.rf90.replay import activation_states
from store import GameRecord, Seat

if TYPE_CHECKING:
    from bot.client import PaddockBot

KIND = "rf90"
AREA = "rf90"
TRACKS = [app_commands.Choice(name=t.capitalize(), value=t) for t in ("barcelona", "silverstone")]


def _cards(state: RF90State) -> dict[int, Any]:
    return catalog.cards(state.track)


def facets(state: RF90State) -> list[Facet]:
    """The questions a decision is asked in, in the engine's words."""
    cards = _cards(state)
    name = catalog.name

    def card_list(ids: list[int] | None) -> str | None:
        return None if ids is None else ", ".join(cards[c].label for c in ids) or "no card"

    def this_turn(a: Any) -> str | None:
        if not isinstance(a, StartTurn):
            return None
        if a.pit is not None:
            return "Pit stop"
        if a.skip:
            return "Skip this turn"
        if a.extreme:
            return "Try the Extreme Trajectory"
        if a.wise_driving is not None:
            return "Wise Driving"
        return "Race on"

    def strategy(a: Any) -> str | None:
        if isinstance(a, ChooseStart):
            return name(a.strategy)
        if isinstance(a, StartTurn):
            chosen = a.pit.strategy if a.pit is not None else a.new_strategy
            return name(chosen) if chosen else "keep my strategy"
        return None

    def tyres(a: Any) -> str | None:
        if isinstance(a, ChooseStart):
            return a.tyres
        if isinstance(a, StartTurn) and a.pit is not None:
            return a.pit.tyres
        return None

    def off_track(a: Any) -> str | None:
        pay = getattr(a, "off_track_pay", None)
        if pay is None:
            return None
        return f"tyres: {card_list(pay.tyre_cards)}; card symbol: {card_list([pay.discard])}"

    def flag(name: str, yes: str, no: str) -> Any:
        return lambda a: (yes if getattr(a, name) else no) if hasattr(a, name) else None

    return [
        Facet(
            "Skill",
            lambda a: name(a.skill, "no skill") if isinstance(a, ChooseSetup) else None,
        ),
        Facet(
            "Set-up",
            lambda a: (
                f"tyres {a.tyres} · wear {a.wear} · cards {a.cards}"
                if isinstance(a, ChooseSetup)
                else None
            ),
        ),
        Facet(
            "Your hand",
            lambda a: (
                ("Substitute car: a new hand" if a.swap else "Keep it")
                if isinstance(a, Mulligan)
                else None
            ),
        ),
        Facet("Qualifying card", lambda a: cards[a.card].label if isinstance(a, Qualify) else None),
        Facet("Fuel", lambda a: f"{a.fuel} turns" if isinstance(a, Qualify) else None),
        Facet("This turn", this_turn),
        Facet(
            "Extra sections",
            lambda a: (
                f"{a.pit.extra_sections} extra"
                if isinstance(a, StartTurn) and a.pit is not None
                else None
            ),
        ),
        Facet("Tyres", tyres),
        Facet("Strategy", strategy),
        Facet(
            "Wise Driving",
            lambda a: card_list(a.wise_driving) if isinstance(a, StartTurn) else None,
        ),
        Facet(
            "Save Fuel discard",
            lambda a: (
                card_list([a.save_fuel_discard])
                if getattr(a, "save_fuel_discard", None) is not None
                else None
            ),
        ),
        Facet(
            "Cards", lambda a: card_list(a.cards) if isinstance(a, PlayCards | DuelCards) else None
        ),
        Facet("Trajectory bonus", flag("use_trajectory", "use it", "not this time")),
        Facet(
            "Pay tyres with",
            lambda a: (
                card_list(a.tyre_cards)
                if isinstance(a, PlayCards) and a.tyre_cards
                else "chips"
                if isinstance(a, PlayCards)
                else None
            ),
        ),
        Facet(
            "Sharp Trajectory discard",
            lambda a: (
                card_list([a.sharp_discard])
                if getattr(a, "sharp_discard", None) is not None
                else None
            ),
        ),
        Facet("Blue disc", flag("blue_bonus", "spend one for +1", "keep it")),
        Facet(
            "Save Fuel",
            lambda a: (
                {"track_card": "take the Track card", "fuel": "save fuel"}[a.save_fuel_choice]
                if isinstance(a, PlayCards)
                else None
            ),
        ),
        Facet("Balance", flag("balance_damage", "pay a tyre with damage", "no")),
        Facet("Unlap", flag("unlap", "unlap myself", "stay behind")),
        Facet("Late braking", flag("late_brake", "try it", "no")),
        Facet(
            "Trajectory",
            lambda a: trajectory_label(state, a.trajectory) if isinstance(a, EndTurn) else None,
        ),
        Facet(
            "Duel",
            lambda a: (
                ("Join the duel" if a.join else "Stay out") if isinstance(a, DuelDeclare) else None
            ),
        ),
        Facet("If the attempt fails, pay", off_track),
    ]


GRID = "grid"  # the frame of the qualifying reveal (others are labelled by their section)
PICTURES = {  # the race's setting: which section activations get a message with pictures
    "every": "every section activation",
    "drivers": "only activations in which a driver decides",
}


class RF90Presenter(Presenter[RF90State]):
    kind = KIND
    area = AREA
    title = "Race! Formula 90"
    min_players = 1  # the robots the rules give fill the grid
    max_players = 6
    max_cars = 6
    play_forced = True  # e.g. phase E with no late braking and no free trajectory
    colours = list(GAME.spec.colours)

    def lobby_lines(self, record: GameRecord) -> list[str]:
        s = record.settings
        pictures = PICTURES[s.get("pictures", "every")]
        turns = s.get("race_turns", catalog.track(s["track"]).race_turns)
        return [
            f"{s['track'].capitalize()} · {turns} game turns · up to {s['max_players']} drivers · "
            f"{duration(s['turn_seconds'])} per decision · pictures: {pictures}",
            "Robots race as the rules give them for the number of drivers. Each driver chooses "
            "skill and set-up in private at the start.",
        ]

    def rules_config(self, record: GameRecord, seats: list[Seat]) -> dict[str, Any]:
        colours = record.settings.get("colours", {})
        players = [
            {
                "name": s.name,
                **({"colour": colours[str(s.user_id)]} if str(s.user_id) in colours else {}),
            }
            for s in seats
        ]
        config: dict[str, Any] = {"track": record.settings["track"], "players": players}
        if "race_turns" in record.settings:  # a shortened race (Paddock rule)
            config["race_turns"] = record.settings["race_turns"]
        return config

    def plays_forced(self, state: Any) -> bool:
        return not decisions.single_option_is_secret(state)

    def waiting_seats(self, state: Any) -> list[int]:
        return decisions.drivers_to_act(GAME, state)

    def move_key(self, state: Any) -> Hashable:
        return decisions.decision_key(state)

    def holds_lines(self, state: RF90State) -> bool:
        return decisions.simultaneous(state)

    def act_token(self, loaded: Loaded[RF90State], seat: int) -> str:
        # The seat's own options at this decision point: another driver's pick in a
        # simultaneous phase does not make this driver's cockpit stale.
        options = [a.model_dump_json() for a in loaded.game.legal_actions(loaded.state, seat)]
        raw = json.dumps([repr(self.move_key(loaded.state)), options])
        return hashlib.sha1(raw.encode()).hexdigest()[:10]

    def apply(self, game: Any, state: Any, action: Any) -> tuple[Any, list[Any], list[Any]]:
        # the state as each section activation ended: one message with its pictures each;
        # and the grid, once the qualifying reveal has formed it (whoever picks first)
        new, events, frames = game.apply_frames(state, action)
        if state.phase in ("setup", "qualifying") and new.phase == "start":
            frames = [(GRID, new, len(events)), *frames]
        return new, events, frames

    def frame_images(self, loaded: Loaded[RF90State], frame: Frame[RF90State]) -> list[Image]:
        state = frame.state
        section = None if frame.label == GRID else frame.label
        return [
            Image(
                f"race{loaded.id}-track.png",
                lambda: render_track(state, active_section=section),
            ),
            Image(f"race{loaded.id}-dashboards.png", lambda: render_dashboards(state)),
        ]

    def frame_caption(self, frame: Frame[RF90State]) -> list[str]:
        # "Section N is activated." may have opened an earlier prompt: each picture of an
        # activation says which it is all the same
        if frame.label == GRID or any(
            e.kind == "activate" and e.data.get("section") == frame.label for e in frame.events
        ):
            return []
        return [f"Section {frame.label}: its activation ends."]

    def frame_shown(self, loaded: Loaded[RF90State], frame: Frame[RF90State]) -> bool:
        # "drivers": only the activations in which a driver (not a robot) took a decision
        if frame.label == GRID or loaded.record.settings.get("pictures", "every") == "every":
            return True
        return any(s in loaded.seats and not loaded.seats[s].robot for s in frame.seats)

    def summary(self, loaded: Loaded[RF90State]) -> str:
        state = loaded.state
        track = catalog.track(state.track, state.race_turns)
        if state.phase in ("setup", "qualifying"):  # no game turn has begun
            return f"{state.track.capitalize()} · {track.race_turns} game turns · before the start"
        return f"{state.track.capitalize()} · game turn {state.turn} of {track.race_turns}"

    async def repost(self, table: TablePort, loaded: Loaded[RF90State]) -> None:
        # No board between activations: `/rf90 status` shows the track and dashboards as
        # they stand (the grid before the start), then the prompt.
        state = loaded.state
        if state.phase in ("start", "race", "finished"):
            now = Frame(GRID if state.phase == "start" else state.activation, state, [])
            channel = await table.channel_of(loaded.record)
            await channel.send(
                f"The race as it stands: {self.summary(loaded)}.",
                files=await draw(self.frame_images(loaded, now)),
                allowed_mentions=MENTION_NONE,
            )
        await table.publish(loaded, [], key_before=None)

    def board(self, loaded: Loaded[RF90State], highlight: int | None) -> list[Image] | None:
        # The race is shown once per section activation and the grid at the qualifying
        # reveal, both as frames (apply); before the grid is known there is nothing to draw.
        return None

    def prompt(self, loaded: Loaded[RF90State], seats: list[int], deadline: float | None) -> Prompt:
        state = loaded.state
        users = [loaded.seats[s].user_id for s in seats if s in loaded.seats]
        who = ", ".join(
            f"<@{loaded.seats[s].user_id}>"
            if loaded.seats[s].user_id
            else shown(loaded.seats[s].name)
            for s in seats
            if s in loaded.seats
        )
        if state.phase == "setup" and decisions.choosing_setup(state):
            what = "choose your skill and set-up (nothing is shown until all have chosen)"
        elif state.phase == "setup":
            what = (
                "keep your hand or take the substitute car (nothing is shown until all have "
                "decided)"
            )
        elif state.phase == "qualifying":
            what = "pick your qualifying card and fuel (nothing is shown until all have picked)"
        elif state.phase == "start":
            what = "choose your starting tyres and strategy"
        elif state.duel is not None and state.duel.stage == "cards":
            what = (
                f"put your cards down for the duel in section {state.duel.section} "
                "(nothing is shown until all have)"
            )
        elif state.duel is not None:
            what = f"a duel in section {state.duel.section}: challenge, join or stay out"
        else:
            # the section activated, not where the car has got to in a later step of its turn
            section = state.activation if state.activation is not None else None
            if section is None and state.pending is not None:
                section = state.pending.start_section
            what = f"your turn in section {section}" if section is not None else "your decision"
        due = f" · decide {timestamp(deadline)}" if deadline else ""
        content = f"{who}: {what}.{due}\n{self.summary(loaded)}"
        cockpit = button(
            "Open my cockpit", AREA, loaded.id, "cockpit", style=discord.ButtonStyle.primary
        )
        images = []
        if state.phase == "race":  # the active section and its neighbours, legible on a phone
            images.append(Image(f"race{loaded.id}-closeup.png", lambda: render_closeup(state)))
        return Prompt(content, [cockpit], images, pings=[u for u in users if u is not None])

    def finish(self, loaded: Loaded[RF90State]) -> tuple[list[str], Image]:
        state = loaded.state
        lines = ["🏁 **Classification**"]
        for place, car in enumerate(GAME.race_classification(state), start=1):
            status = "" if car.running else f" ({car.status})"
            lines.append(f"{place}. {shown(car.name)}{status}")
        return lines, Image(f"race{loaded.id}-result.png", lambda: render_classification(state))

    async def on_button(
        self,
        table: TablePort,
        interaction: discord.Interaction,
        game_id: int,
        action: str,
        arg: str,
    ) -> bool:
        if action == "cockpit":
            await self.cockpit(table, interaction, game_id, None)
        elif action == "pick" and arg:
            await self.cockpit(table, interaction, game_id, arg)
        else:
            return False
        return True

    async def cockpit(
        self, table: TablePort, interaction: discord.Interaction, game_id: int, arg: str | None
    ) -> None:
        """The driver's private cockpit: the dashboard, the hand, and the next question of
        the decision the engine waits for (only legal actions are reachable)."""
        loaded = await table.load(game_id)
        seat = table.acting_seat(loaded, interaction.user.id)
        token = self.act_token(loaded, seat)
        path: list[int] = []
        page = 0
        if arg is not None:
            try:
                old, path, page = decode(arg)
            except ValueError:
                raise PaddockError("This button is no longer valid.") from None
            if old != token:
                raise PaddockError(
                    "That choice is out of date: the race has moved on. Open your cockpit again."
                )
        options = loaded.game.legal_actions(loaded.state, seat)
        try:
            narrowed = narrow(options, facets(loaded.state), path)
        except ValueError:
            raise PaddockError("That choice is out of date. Open your cockpit again.") from None
        if narrowed.question is None and arg is None:  # one option: confirm it, not on open
            await interaction.response.send_message(
                dashboard(loaded.state, seat),
                view=view_of(button("Confirm", AREA, game_id, "pick", encode(token, []))),
                ephemeral=True,
            )
            return
        if narrowed.question is None:
            assert narrowed.index is not None
            await table.act_index(
                interaction, self, game_id, token, narrowed.index, done="Done: decision sent."
            )
            return
        q = narrowed.question
        lines = [dashboard(loaded.state, seat)]
        lines += [f"{title}: **{answer}**" for title, answer in q.chosen]
        lines.append(f"**{q.title}?**")
        shown = q.answers[page * PAGE : (page + 1) * PAGE]
        items: list[discord.ui.Item[Any]] = [
            button(answer[:80], AREA, game_id, "pick", encode(token, [*path, page * PAGE + i]))
            for i, answer in enumerate(shown)
        ]
        if page > 0:  # back a page of the same question (a first question has no Back)
            back = encode(token, path, page - 1)
            items.append(button(f"◀ Page {page}", AREA, game_id, "pick", back))
        if (page + 1) * PAGE < len(q.answers):
            items.append(button("More…", AREA, game_id, "pick", encode(token, path, page + 1)))
        if path:
            items.append(button("Back", AREA, game_id, "pick", encode(token, path[:-1])))
        content = "\n".join(lines)[:1990]
        if arg is None:  # the cockpit opens with the hand drawn as cards
            # Answered at once ("thinking"), the cards drawn after: the answer does not
            # wait for the picture.
            if not await defer(interaction, ephemeral=True, thinking=True):
                return  # Discord no longer takes this click: nothing was changed
            state = loaded.state
            image = Image("cockpit.png", lambda: render_cockpit(state, seat))
            await interaction.edit_original_response(
                content=content, view=view_of(*items), attachments=await draw([image])
            )
        else:
            await interaction.response.edit_message(content=content, view=view_of(*items))


def trajectory_label(state: RF90State, trajectory: str | None) -> str:
    """A trajectory as the close-up draws it (its symbol's kind and colours, its section),
    not its id."""
    if trajectory is None:
        return "none"
    track = catalog.track(state.track)
    t = track.trajectory(trajectory)
    words = {"tyres": "tyre", "damage": "damage disc", "cards": "card"}
    cost = ", ".join(counted(n, words[what]) for what, n in t.cost.model_dump().items() if n)
    return (
        f"{t.kind.capitalize()} in section {track.trajectory_section(trajectory)}: "
        f"{'/'.join(t.colours)}, +{t.bonus} MP" + (f" (costs {cost})" if cost else "")
    )


def dashboard(state: RF90State, seat: int) -> str:
    """The seat's own car and hand, for its cockpit only."""
    car = next(c for c in state.cars if c.seat == seat)
    cards = _cards(state)
    hand = ", ".join(cards[c].label for c in car.hand) or "no cards"
    skill = catalog.name(car.skill)
    if state.phase in ("setup", "qualifying"):
        # before the grid: no place, lap or fuel yet, only what this driver has chosen
        chosen = [
            f"set-up: tyres {car.setup.tyres}, wear {car.setup.wear}, cards {car.setup.cards}"
            if car.setup_chosen
            else "set-up: not chosen yet",
            f"skill {skill}",
        ]
        if car.qual_fuel is not None:
            chosen.append(f"fuel to turn {car.qual_fuel}")
        return (
            f"**{shown(car.name)}** · before the start · "
            + " · ".join(chosen)
            + (f"\nHand: {hand}")
        )
    return (
        f"**{shown(car.name)}** · section {car.section}, lap "
        f"{car.lap} · tyres {car.tyre or '-'} ({car.chips} chips) · damage {car.damage_red} red, "
        f"{car.damage_brown} brown · refuel by turn {car.fuel_turn} · strategy "
        f"{catalog.name(car.strategy)} · skill {skill}\n"
        f"Hand: {hand}"
    )


class RF90Cog(TableCog, group_name="rf90", group_description="Race! Formula 90 races"):
    presenter = RF90Presenter()

    def __init__(self, bot: PaddockBot) -> None:
        super().__init__(bot)
        self._replaying = asyncio.Lock()
        self._replays: dict[tuple[int, int], bytes] = {}  # the last two drawn, newest first

    @app_commands.command(name="new", description="Open a Race! Formula 90 lobby in a thread")
    @app_commands.describe(
        track="Barcelona or Silverstone",
        max_players="Most human drivers (1-6, default 6)",
        turn_minutes="Minutes for each decision before the seat policy decides (default 1440)",
        league="An RF90 league this race counts for (start typing to pick one)",
        round="That league's round (start typing: the rounds still to race)",
        idle_days="Days with nobody acting before the race is abandoned (default 7)",
        pictures="Post the track after every section activation (default) or only those "
        "in which a driver decides",
        turns="Game turns for a shorter race (default: the track's full race, Barcelona 27, "
        "Silverstone 25)",
    )
    @app_commands.choices(
        track=TRACKS,
        pictures=[app_commands.Choice(name=text, value=key) for key, text in PICTURES.items()],
    )
    @league_option(game=KIND, open_only=True, rounds_offered="to race", describe=False)
    async def new(
        self,
        interaction: discord.Interaction,
        track: app_commands.Choice[str],
        max_players: app_commands.Range[int, 1, 6] = 6,
        turn_minutes: app_commands.Range[int, 1, 10080] = 1440,
        league: str | None = None,
        round: app_commands.Range[int, 1, 99] | None = None,
        idle_days: app_commands.Range[int, 1, 60] = 7,
        pictures: str = "every",
        turns: app_commands.Range[int, catalog.MIN_RACE_TURNS, 99] | None = None,
    ) -> None:
        assert interaction.guild is not None
        full = catalog.track(track.value).race_turns
        if turns is not None and not catalog.MIN_RACE_TURNS <= turns <= full:
            raise PaddockError(
                f"A race at {track.name} lasts at most {full} game turns: "
                f"choose {catalog.MIN_RACE_TURNS} to {full}, or leave turns out for the full race."
            )
        # Discord keeps options in their ranges; discord.py does not check, so here too.
        if not 1 <= max_players <= 6:
            raise PaddockError("A race has 1 to 6 drivers (robots fill the grid).")
        if not 1 <= turn_minutes <= 10080:
            raise PaddockError("The time for a decision is 1 minute to 7 days (10080 minutes).")
        if not 1 <= idle_days <= 60:
            raise PaddockError("An idle race is abandoned after 1 to 60 days.")
        await think(interaction, starting=True)  # before the store: a race night's burst
        found = await league_round_for_game(
            self.store, interaction.guild.id, league, round, KIND, interaction.user.id
        )
        title = f"Race! Formula 90 at {track.name}"
        if found is not None:
            title = f"{found[0].name} round {found[1].number}: {found[1].name}"
        settings = {
            "track": track.value,
            "max_players": max_players,
            "turn_seconds": turn_minutes * 60,
            "idle_days": idle_days,
            "pictures": pictures if pictures in PICTURES else "every",
            "title": title,
        }
        if turns is not None and turns < full:
            settings["race_turns"] = turns
        seed = int.from_bytes(interaction.id.to_bytes(8, "big")[-6:], "big")
        await self.table.lobby.open_lobby(
            interaction, self.presenter, settings, seed=seed, league_round=found
        )

    @app_commands.command(name="hand", description="Reopen your cockpit (only you see it)")
    async def hand(self, interaction: discord.Interaction) -> None:
        record = await self.table.game_here(interaction, self.presenter)
        loaded = await self.table.load(record.id)
        mine = loaded.human_seat(interaction.user.id)
        if mine is None:
            raise PaddockError("You are not driving in this race.")
        if mine.seat in self.presenter.waiting_seats(loaded.state):
            await self.presenter.cockpit(self.table, interaction, record.id, None)
        else:
            await interaction.response.send_message(
                dashboard(loaded.state, mine.seat) + "\nNothing to decide right now.",
                ephemeral=True,
            )

    @app_commands.command(
        name="replay", description="Post this race as an animation: one frame per activation"
    )
    async def replay(self, interaction: discord.Interaction) -> None:
        record = await self.table.game_here(interaction, self.presenter, running=False, ended=True)
        if record.state_json is None:
            raise PaddockError("This race has not started yet: nothing to replay.")
        await interaction.response.defer(thinking=True)
        actions = [a.action_json for a in await self.store.actions(record.id)]
        key = (record.id, len(actions))

        def render() -> bytes:  # ~10 s of drawing on one core: never on the event loop
            states = activation_states(GAME, record.seed, record.config, actions)
            if len(states) < 2 and record.status != "running":
                raise PaddockError(
                    f"This race is over: it was {ending(record)} before its first "
                    "section activation, so there is nothing to replay; `/rf90 log` tells its "
                    "moves."
                )
            if len(states) < 2:
                raise PaddockError("The race has not reached its first activation yet.")
            return render_replay(states)

        async with self._replaying:  # one at a time: the other core keeps serving races
            if key not in self._replays:
                self._replays = {key: await asyncio.to_thread(render), **self._replays}
                self._replays = dict(list(self._replays.items())[:2])
        data = self._replays[key]
        state = GAME.load_state(record.state_json)
        done = "the whole race" if state.phase == "finished" else f"up to game turn {state.turn}"
        if record.status not in ("lobby", "running"):  # watched again once it is over
            how = ending(record)
            done += " (it has finished)" if how == "finished" else f", where it was {how}"
        await interaction.followup.send(
            f"Replay of {shown(record.settings.get('title', 'the race'))}"
            f": {done}, one frame per section activation.",
            file=discord.File(io.BytesIO(data), filename=f"race{record.id}-replay.webp"),
        )


async def setup(bot: PaddockBot) -> None:
    await bot.add_cog(RF90Cog(bot))
