"""Race! Formula 90's presenter: what the table layer asks of the game. The drivers it waits
for are pinged in public with one button (the same for everyone, so nothing public depends
on a hand), which opens their private cockpit: the hand and dashboard, and the engine's legal
actions asked as a few short questions."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Hashable
from functools import partial
from typing import TYPE_CHECKING, Any

import discord

from bot.choices import PAGE, decode, encode, narrow
from bot.components import button, shown, view_of
from bot.limits import MESSAGE
from bot.posting import defer
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
from renderer.common import counted
from renderer.rf90 import (
    activation_pictures,
    render_classification,
    render_closeup,
    render_cockpit,
)
from rules.errors import PaddockError
from rules.rf90 import (
    GAME,
    RF90State,
    StartTurn,
    catalog,
    decisions,
)
from store import GameRecord, Round, Seat

if TYPE_CHECKING:
    pass
from bot.cogs.rf90.cockpit import dashboard, facets

KIND = "rf90"
AREA = "rf90"
GRID = "grid"  # the frame of the qualifying reveal (others are labelled by their section)
PICTURES = {  # the race's setting: which section activations get a message with pictures
    "every": "every section activation",
    "drivers": "only activations in which a driver decides",
}


TRACK_NAMES = ("barcelona", "silverstone")


def track_order(choices: dict[str, Any]) -> list[str]:
    """A league's tracks in the order its rounds race them (default: both, in turn)."""
    given = choices.get("tracks") or ",".join(TRACK_NAMES)
    return [t.strip().lower() for t in str(given).replace(" ", ",").split(",") if t.strip()]


class RF90Presenter(Presenter[RF90State]):
    kind = KIND
    area = AREA
    title = "Race! Formula 90"
    min_players = 1  # the robots the rules give fill the grid
    max_players = 6
    max_cars = 6
    play_forced = True  # e.g. phase E with no late braking and no free trajectory
    colours = list(GAME.spec.colours)
    league_choices = {
        "tracks": "tracks=silverstone, barcelona (the tracks in round order)",
        "turns": "turns=12 (game turns a race; default the full race)",
        "pictures": "pictures=drivers (pictures of only the activations drivers decide in)",
    }
    round_choices = {"track": "track=silverstone (this round's track)"}

    def league_choice(self, key: str, text: str) -> Any:
        if key == "turns":
            if not text.isdigit():
                raise PaddockError("Give the game turns as a number, e.g. `turns=12`.")
            return int(text)
        if key == "pictures" and text.lower() not in PICTURES:
            raise PaddockError(f"Pictures are one of: {', '.join(PICTURES)}.")
        return text.lower()

    def round_choice(self, key: str, text: str) -> Any:
        track = text.strip().lower()
        if track not in TRACK_NAMES:
            raise PaddockError(
                f"RF90's tracks are {' and '.join(t.capitalize() for t in TRACK_NAMES)}."
            )
        return track

    def check_league_choices(self, choices: dict[str, Any]) -> None:
        tracks = track_order(choices)
        unknown = [t for t in tracks if t not in TRACK_NAMES]
        if unknown or not tracks:
            raise PaddockError(
                f"RF90's tracks are {' and '.join(t.capitalize() for t in TRACK_NAMES)}: list "
                "them in the order the rounds race them, e.g. `barcelona, silverstone`."
            )
        turns = choices.get("turns")
        if turns is not None:
            full = min(catalog.track(t).race_turns for t in tracks)
            if not catalog.MIN_RACE_TURNS <= int(turns) <= full:
                raise PaddockError(
                    f"Races on these tracks last {catalog.MIN_RACE_TURNS} to {full} game turns."
                )
        if choices.get("pictures", "every") not in PICTURES:
            raise PaddockError(f"Pictures are one of: {', '.join(PICTURES)}.")

    def league_choice_lines(self, choices: dict[str, Any]) -> list[str]:
        tracks = " → ".join(t.capitalize() for t in track_order(choices))
        turns = choices.get("turns")
        return [
            f"Tracks, round by round: {tracks} (then again)",
            f"{turns} game turns a race" if turns else "Full race length",
            f"Pictures: {PICTURES[choices.get('pictures', 'every')]}",
        ]

    def league_round_settings(self, choices: dict[str, Any], rnd: Round) -> dict[str, Any]:
        order = track_order(choices)
        track = rnd.settings.get("track") or order[(rnd.number - 1) % len(order)]
        settings: dict[str, Any] = {"track": track, "pictures": choices.get("pictures", "every")}
        turns = choices.get("turns")
        if turns is not None and int(turns) < catalog.track(track).race_turns:
            settings["race_turns"] = int(turns)
        return settings

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
        # simultaneous phase does not make this driver's cockpit stale. Hashed once per read.
        key = ("act token", seat)
        if key not in loaded.memo:
            options = [a.model_dump_json() for a in loaded.options(seat)]
            raw = json.dumps([repr(self.move_key(loaded.state)), options])
            loaded.memo[key] = hashlib.sha1(raw.encode()).hexdigest()[:10]
        token: str = loaded.memo[key]
        return token

    def apply(self, game: Any, state: Any, action: Any) -> tuple[Any, list[Any], list[Any]]:
        # the state as each section activation ended: one message with its pictures each;
        # and the grid, once the qualifying reveal has formed it (whoever picks first)
        new, events, frames = game.apply_frames(state, action)
        if state.phase in ("setup", "qualifying") and new.phase == "start":
            frames = [(GRID, new, len(events)), *frames]
        return new, events, frames

    def frame_images(self, loaded: Loaded[RF90State], frame: Frame[RF90State]) -> list[Image]:
        # the same pictures as the league site's activation pages (renderer.rf90)
        section = None if frame.label == GRID else frame.label
        return [
            Image(f"race{loaded.id}-{name}.png", draw)
            for name, draw in activation_pictures(frame.state, section).items()
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

    def confirmation(self, loaded: Loaded[RF90State], seat: int, action: Any) -> str | None:
        # Costly: a pit stop (the car drops back down the track). RF90 has no retiring by
        # choice, and `/rf90 abandon` (the host's, for the whole race) asks on its own.
        pit = action.pit if isinstance(action, StartTurn) else None
        if pit is None:
            return None
        what = [f"{pit.tyres} tyres"]
        if pit.strategy:
            what.append(f"strategy {catalog.name(pit.strategy)}")
        if pit.extra_sections:
            what.append(counted(pit.extra_sections, "extra section"))
        return (
            f"Pit this turn ({', '.join(what)})? Your car drops back down the track for its "
            "stop. This can't be taken back."
        )

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
            images.append(Image(f"race{loaded.id}-closeup.png", partial(render_closeup, state)))
        return Prompt(content, [cockpit], images, pings=[u for u in users if u is not None])

    def finish(self, loaded: Loaded[RF90State]) -> tuple[list[str], Image]:
        state = loaded.state
        lines = ["🏁 **Classification**"]
        for place, car in enumerate(GAME.race_classification(state), start=1):
            status = "" if car.running else f" ({car.status})"
            lines.append(f"{place}. {shown(car.name)}{status}")
        return lines, Image(f"race{loaded.id}-result.png", partial(render_classification, state))

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
        decision = await table.decision(interaction, self, game_id)
        loaded, seat, token, options = (
            decision.loaded,
            decision.seat,
            decision.token,
            decision.options,
        )
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
        content = "\n".join(lines)[: MESSAGE - 10]
        if arg is None:  # the cockpit opens with the hand drawn as cards
            # Answered at once ("thinking"), the cards drawn after: the answer does not
            # wait for the picture.
            if not await defer(interaction, ephemeral=True, thinking=True):
                return  # Discord no longer takes this click: nothing was changed
            state = loaded.state
            image = Image("cockpit.png", partial(render_cockpit, state, seat))
            await interaction.edit_original_response(
                content=content, view=view_of(*items), attachments=await draw([image])
            )
        else:
            await interaction.response.edit_message(content=content, view=view_of(*items))
