"""The Pit Formula game: setup, races, repairs, flags, scoring and views.

Sources are cited per rule; docs/rules/pitformula.md is the player-facing version.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from rules.base import Action, Event, Game, Placing
from rules.errors import BadConfig, IllegalAction, NotYourTurn
from rules.pitformula import coords
from rules.pitformula.catalog import FLAG_NAMES, LETTER_PART, PART_LETTER, PARTS, Repairs, catalog
from rules.pitformula.coords import SLOT_PART, SPARE
from rules.pitformula.repairs import TOKEN_COUNT, is_correct
from rules.pitformula.spec import SPEC
from rules.pitformula.state import (
    ACTION_ADAPTER,
    DISCARDED,
    ON_TABLE,
    OUT_OF_PLAY,
    SETTING_LIMITS,
    SPARE_SLOT,
    Car,
    CardSlot,
    CarResult,
    Clear,
    Fix,
    Go,
    PitFormulaState,
    Race,
    RaceResult,
    Retire,
    Reveal,
    RivalResult,
    Settings,
    TakeFlag,
    Timed,
    TimeUp,
)

MAX_POINTS_RACES = 12  # Paddock rule: a points championship also ends after 12 races


def parse_settings(config: dict[str, Any]) -> Settings:
    """The settings, or `BadConfig` saying in a player's words what is wrong with them: the
    settings' own refusal, or what the first setting refused takes (SETTING_LIMITS)."""
    try:
        return Settings.model_validate(config)
    except ValidationError as exc:
        first = exc.errors()[0]
        refusal = first.get("ctx", {}).get("error")
        if isinstance(refusal, BadConfig):
            raise refusal from None
        field = str(first["loc"][0]) if first["loc"] else ""
        raise BadConfig(SETTING_LIMITS.get(field, "These game settings are not valid.")) from None


# --- small queries the bot and renderer can use ---------------------------------------------


def car_of_seat(state: PitFormulaState, seat: int) -> int:
    for i, car in enumerate(state.cars):
        if seat in car.seats:
            return i
    raise NotYourTurn("You are not in this game.")


def team_of_car(state: PitFormulaState, car: int) -> int | None:
    for t, team in enumerate(state.settings.teams):
        if car in team:
            return t
    return None


def competitor_scores(state: PitFormulaState) -> list[int]:
    """Points per competitor: per team in constructors mode, else per car."""
    if state.settings.teams:
        return [sum(state.cars[c].score for c in team) for team in state.settings.teams]
    return [car.score for car in state.cars]


def card_numbers(slot: CardSlot) -> tuple[int, int]:
    return catalog().part_cards[slot.card].numbers


def token_digits(state: PitFormulaState, slot: CardSlot) -> list[int | None]:
    return [None if t == SPARE_SLOT else int(state.faces[t][1]) for t in slot.tokens]


def filled_counts(car: Car) -> dict[str, int]:
    out: dict[str, int] = dict.fromkeys(PARTS, 0)
    for cs in car.cards:
        if cs.tokens:
            out[SLOT_PART[cs.slot]] += 1
    return out


def missing_repairs(car: Car) -> dict[str, int]:
    """Required repairs (by the crash card) that have no tokens yet."""
    filled = filled_counts(car)
    out: dict[str, int] = {}
    for part in PARTS:
        short = car.required.get(part) - filled[part]
        if short > 0:
            out[part] = short
    return out


def table_layout(state: PitFormulaState) -> list[list[dict[str, Any]]]:
    """5 rows x 14 columns (a-g block 1, h-n block 2) for rendering: coordinate, part, digit
    and whether the token is on the table now."""
    rows = []
    for r in range(coords.ROWS):
        row = []
        for c in range(len(coords.COLUMNS)):
            slot = r * len(coords.COLUMNS) + c
            face = state.faces[slot]
            row.append(
                {
                    "coord": coords.coord_of(slot),
                    "part": LETTER_PART[face[0]],
                    "digit": int(face[1]),
                    "present": state.where[slot] == ON_TABLE,
                    "block": 1 if c < coords.BLOCK_COLUMNS else 2,
                }
            )
        rows.append(row)
    return rows


def spare_penalty(n: int) -> int:
    """-1 for the first spare part, -2 for the second... (source: '2.6 Spare parts')."""
    return n * (n + 1) // 2


def super_race(state: PitFormulaState) -> bool:
    """Is the coming race a super crash race?"""
    st = state.settings
    n = state.race.number
    if st.points_target is not None:
        # source: 'Points championship': once a player has 30 or more points
        scores = competitor_scores(state) + ([state.rival_score] if st.solo else [])
        return max(scores) >= st.super_from_points
    # source: '1. Drawing a crash card' (the last race) and 'Longer Championships' (from
    # four-fifths of the races on; Paddock rule: a race is super when at least 4/5 of the
    # races have been run before it)
    return n >= st.races or 5 * (n - 1) >= 4 * st.races


def _card_name(word: str) -> str:
    """A card named the way actions name it (t1-t4, w, g, e); IllegalAction otherwise, saying
    the name to use (`coords.normalise_card` reads the other spellings typed text may use)."""
    if word in coords.CARD_SLOTS:
        return word
    raise IllegalAction(f"Name the card `{coords.normalise_card(word)}`, not `{word}`.")


def _token_name(word: str) -> str:
    """A token named the way actions name it (`b3`, or `spare`); IllegalAction otherwise."""
    canonical = coords.normalise_token(word)
    if canonical != word:
        raise IllegalAction(f"Name the token `{canonical}`, not `{word}`.")
    return word


# --- the game -------------------------------------------------------------------------------


class PitFormula(Game[PitFormulaState]):
    spec = SPEC
    name = SPEC.name
    title = SPEC.title
    state_type = PitFormulaState
    action_adapter = ACTION_ADAPTER

    def undo_refusal(
        self, before: PitFormulaState, after: PitFormulaState, seat: int, events: list[Event]
    ) -> str | None:
        # Paddock rule (docs/rules/pitformula.md): played in real time, nothing is taken back
        # (a crew clears its own card instead)
        return "Pit Formula is played in real time: clear your card instead"

    # setup ------------------------------------------------------------------------------

    def new_game(self, seed: int, config: dict[str, Any]) -> PitFormulaState:
        from rules.rng import Rng

        st = parse_settings(config)
        if st.solo and st.rival not in catalog().rivals:
            rivals = ", ".join(r.name for r in catalog().rivals.values())
            raise BadConfig(f"There is no Rival called {st.rival!r}: the Rivals are {rivals}.")
        cat = catalog()
        rng = Rng.from_seed(seed)
        faces = [f"{PART_LETTER[part]}{d}" for part in PARTS for d in cat.components.tokens[part]]
        faces = rng.shuffled(faces)  # source: 'Setup' 5, tokens laid out at random
        where = [OUT_OF_PLAY if st.basic and f[0] == "E" else ON_TABLE for f in faces]
        parts = [p for p in PARTS if not (st.basic and p == "engine")]
        decks: dict[str, list[str]] = {p: rng.shuffled(cat.cards_of(p)) for p in parts}
        decks["crash"] = rng.shuffled(cat.crash_deck("crash", st.basic))
        decks["super"] = rng.shuffled(cat.crash_deck("super", st.basic))
        trophies = rng.shuffled(sorted(cat.trophies))
        if st.points_target is None:
            trophies = trophies[: st.races]  # source: 'Setup' 3 and 'Longer Championships'
        cars = []
        for crew in st.crews:
            cards = []
            for part in parts:
                for i in range(cat.components.board[part]):
                    slot = f"t{i + 1}" if part == "tyre" else part[0]
                    cards.append(CardSlot(slot=slot, card=decks[part].pop()))
            cars.append(Car(seats=list(crew), cards=cards))
        starter = 0 if st.solo else rng.below(len(cars))  # source: 'Setup' 9 (at random)
        rival = cat.rivals[st.rival] if st.solo else None
        state = PitFormulaState(
            rng=rng,
            settings=st,
            race=Race(),
            starter=starter,
            faces=faces,
            where=where,
            cars=cars,
            decks=decks,
            discards={k: [] for k in decks},
            trophy_stack=trophies,
            refill_wait=rival.rounds_without_refill if rival else 0,
        )
        return state

    # apply ------------------------------------------------------------------------------

    def apply(self, state: PitFormulaState, action: Action) -> tuple[PitFormulaState, list[Event]]:
        return self._apply(state, action, copy=True)

    def apply_owned(
        self, state: PitFormulaState, action: Action
    ) -> tuple[PitFormulaState, list[Event]]:
        """`apply` without its deep copy of the state (most of an action's time; the
        league site's race page replays a whole log): `_apply` reads `state` only before
        the copy, so the result is `apply`'s."""
        return self._apply(state, action, copy=False)

    def _apply(
        self, state: PitFormulaState, action: Action, copy: bool
    ) -> tuple[PitFormulaState, list[Event]]:
        self.check_action(state, action)
        car_i = car_of_seat(state, action.seat)
        if isinstance(action, Go):
            new = state.model_copy(deep=True) if copy else state
            go_events = self._go(new)
            new.moves += 1
            return new, go_events
        assert isinstance(action, Timed)
        now = state.race.clock_ms if action.at_ms is None else action.at_ms
        if isinstance(action, TimeUp):
            now = max(now, state.race.deadline_ms or 0)
        new = state.model_copy(deep=True) if copy else state
        new.moves += 1
        race = new.race
        race.seq += 1
        race.clock_ms = max(race.clock_ms, now)
        ncar = new.cars[car_i]
        ncar.last_ms = max(ncar.last_ms, now)
        events: list[Event] = []
        if isinstance(action, Reveal):
            shown = []
            for name in action.cards:
                cs = self._card(ncar, name)
                if not cs.revealed:
                    cs.revealed = True
                    shown.append(f"{cs.slot} {card_numbers(cs)[0]}-{card_numbers(cs)[1]}")
            events.append(
                Event(kind="reveal", text=f"car {car_i + 1} turns over {', '.join(shown)}")
            )
        elif isinstance(action, Fix):
            cs = self._card(ncar, action.card)
            for t in action.tokens:
                if t == SPARE:
                    cs.tokens.append(SPARE_SLOT)
                    race.spares_left -= 1
                else:
                    slot = coords.slot_of(t)
                    new.where[slot] = car_i
                    cs.tokens.append(slot)
            if ncar.done_seq is None and not missing_repairs(ncar):
                ncar.done_seq = race.seq
            events.append(
                Event(
                    kind="fix",
                    text=f"car {car_i + 1} repairs {action.card} with {' '.join(action.tokens)}",
                    data={"car": car_i, "card": action.card, "tokens": list(action.tokens)},
                )
            )
        elif isinstance(action, Clear):
            cs = self._card(ncar, action.card)
            for slot in cs.tokens:
                if slot == SPARE_SLOT:
                    race.spares_left += 1
                else:
                    new.where[slot] = ON_TABLE
            cs.tokens = []
            if missing_repairs(ncar):
                ncar.done_seq = None
            events.append(Event(kind="clear", text=f"car {car_i + 1} clears {cs.slot}"))
        elif isinstance(action, TakeFlag):
            ncar.flag = len(race.flags_taken)
            race.flags_taken.append(car_i)
            events.append(
                Event(
                    kind="flag",
                    text=f"car {car_i + 1} takes the {FLAG_NAMES[ncar.flag]} flag",
                    data={"car": car_i, "flag": ncar.flag, "at_ms": now},
                )
            )
        elif isinstance(action, Retire):
            ncar.retired = True
            events.append(Event(kind="retire", text=f"car {car_i + 1} retires from the race"))
        elif isinstance(action, TimeUp):
            race.ended_by = "time_up"
            events.append(Event(kind="time_up", text="The stopwatch ran out."))
        if self._race_over(new):
            events += self._finish_race(new)
        return new, events

    # what apply accepts -------------------------------------------------------------------

    def check_action(self, state: PitFormulaState, action: Action) -> None:
        """Raise IllegalAction (NotYourTurn for a seat that may not act) unless `apply`
        accepts this action now. `apply` accepts exactly (docs/rules/pitformula.md, "What a
        crew may send"):

        - `Go` before a race, from a crew member of the starting car;
        - during a race, from a crew member of a car that has neither taken a flag nor retired,
          at the action's time t (`at_ms`, or the race clock when it is None):
          - `Reveal`: one or more of the car's cards, named once each (t1-t4, w, g, e; no e in
            the basic game), at least one of them face down (face-up ones stay as they are);
          - `Fix`: a face-up card with no tokens, and 1 or 2 tokens for a tyre card, exactly 2
            otherwise: each a coordinate (a-n and 1-5, like `b3`) of a token of the card's part
            that is on the table, named once, or `spare` (at most the spare parts left);
          - `Clear`: one of the car's cards with tokens on it;
          - `TakeFlag`: while a flag is free;
          - `Retire`;
          - these only while the stopwatch (solo and cooperative) has not run out, t <= the
            deadline; and `TimeUp` only once it has, t >= the deadline.
        Names are the canonical ones that the text parser (`coords.parse_command`) produces:
        lower case, `spare` for a spare part.

        `legal_actions` lists all of these at the race clock (at_ms None) except `Fix`, whose
        tokens are free-form, and it reveals one card at a time."""
        if state.phase == "over":
            raise IllegalAction("The championship is over.")
        car_i = car_of_seat(state, action.seat)
        car = state.cars[car_i]
        if isinstance(action, Go):
            if state.phase != "ready":
                raise IllegalAction("The race is already on.")
            if car_i != state.starter:
                raise NotYourTurn("The winner of the last race draws the crash card.")
            return
        if not isinstance(action, Reveal | Fix | Clear | TakeFlag | Retire | TimeUp):
            raise IllegalAction("Pit Formula does not know that action.")
        if state.phase != "repair":
            raise IllegalAction("The race has not started: draw the crash card first.")
        if car.flag is not None:
            raise IllegalAction("You have taken a flag: your pit stop is over for this race.")
        if car.retired:
            raise IllegalAction("You have retired from this race.")
        t = state.race.clock_ms if action.at_ms is None else action.at_ms
        deadline = state.race.deadline_ms
        if isinstance(action, TimeUp):
            if deadline is None:
                raise IllegalAction("There is no stopwatch in this mode.")
            if t < deadline:
                raise IllegalAction("The stopwatch has not run out yet.")
        elif deadline is not None and t > deadline:
            raise IllegalAction("The stopwatch has run out.")
        if isinstance(action, Reveal):
            self._check_reveal(car, action)
        elif isinstance(action, Fix):
            self._check_fix(state, car, action)
        elif isinstance(action, Clear):
            if not self._card(car, _card_name(action.card)).tokens:
                raise IllegalAction(f"{action.card} has no tokens on it.")
        elif isinstance(action, TakeFlag) and len(state.race.flags_taken) >= state.race.flags:
            raise IllegalAction("Every flag has been taken.")

    @staticmethod
    def _card(car: Car, name: str) -> CardSlot:
        for cs in car.cards:
            if cs.slot == name:
                return cs
        raise IllegalAction(f"There is no {name} card in this game (no engines in the basic game).")

    def _check_reveal(self, car: Car, action: Reveal) -> None:
        names = [_card_name(n) for n in action.cards]
        if len(set(names)) != len(names):
            raise IllegalAction("Name each card to turn over once.")
        slots = [self._card(car, n) for n in names]
        if all(cs.revealed for cs in slots):
            raise IllegalAction(f"{', '.join(names)} already face up.")

    def _check_fix(self, state: PitFormulaState, car: Car, action: Fix) -> None:
        name = _card_name(action.card)
        cs = self._card(car, name)
        if not cs.revealed:
            raise IllegalAction(f"Turn {name} over first (`reveal {name}`).")
        if cs.tokens:
            raise IllegalAction(f"{name} already has tokens on it: `clear {name}` first.")
        part = SLOT_PART[name]
        tokens = [_token_name(t) for t in action.tokens]
        lo, hi = TOKEN_COUNT[part]
        if not lo <= len(tokens) <= hi:
            want = f"exactly {lo}" if lo == hi else f"{lo} or {hi}"
            raise IllegalAction(f"A {part} repair takes {want} tokens, not {len(tokens)}.")
        named = [t for t in tokens if t != SPARE]
        if len(set(named)) != len(named):
            raise IllegalAction("You named the same token twice.")
        spares = len(tokens) - len(named)
        if spares > state.race.spares_left:
            left = state.race.spares_left
            raise IllegalAction(f"Only {left} spare part{'s' if left != 1 else ''} left.")
        letter = PART_LETTER[part]
        for t in named:
            slot = coords.slot_of(t)
            if state.where[slot] == OUT_OF_PLAY:
                raise IllegalAction(f"{t} is not in play in this game.")
            if state.where[slot] != ON_TABLE:
                raise IllegalAction(f"{t} is no longer on the table: someone took it.")
            face = state.faces[slot]
            if face[0] != letter:
                kind = LETTER_PART[face[0]]
                article = "an" if kind[0] in "aeiou" else "a"
                raise IllegalAction(f"{t} is {article} {kind} token; {name} takes {part} tokens.")

    # race start and end ---------------------------------------------------------------------

    def _draw(self, state: PitFormulaState, pile: str) -> str:
        if not state.decks[pile]:
            # source: '4. Resetting for the next race': shuffle the discard pile
            state.decks[pile] = state.rng.shuffled(state.discards[pile])
            state.discards[pile] = []
        return state.decks[pile].pop()

    def _go(self, state: PitFormulaState) -> list[Event]:
        st = state.settings
        race = state.race
        race.super = super_race(state)
        race.crash = self._draw(state, "super" if race.super else "crash")
        crash = catalog().crash_cards[race.crash]
        race.flags = 1 if st.solo else min(3, st.cars - 1)  # source: 'Setup' 2
        race.flags_taken = []
        race.spares_left = catalog().components.spare_parts
        race.clock_ms = 0
        race.seq = 0
        race.ended_by = ""
        if st.solo:
            rival = catalog().rivals[st.rival]
            ms = st.stopwatch_ms or rival.stopwatch_s * 1000
            race.deadline_ms = ms // 2 if st.mode == "coop" else ms  # 'Cooperative Mode'
        scores = competitor_scores(state)
        top, bottom = max(scores), min(scores)
        for i, car in enumerate(state.cars):
            team = team_of_car(state, i)
            mine = scores[i if team is None else team]
            if crash.kind == "all":
                car.group, car.required = "all", crash.all or Repairs()
            else:
                # source: '1. Drawing a crash card' (ties: all tied are leaders / last);
                # solo: the player is always the leader ('Playing a Solo Game')
                if st.solo:
                    special = crash.kind == "leader"
                else:
                    special = mine == (top if crash.kind == "leader" else bottom)
                car.group = "special" if special else "others"
                car.required = (crash.special if special else crash.others) or Repairs()
            car.flag = None
            car.retired = False
            car.done_seq = None
            car.last_ms = 0
        state.phase = "repair"
        label = "SUPER CRASH" if race.super else "Crash card"
        return [
            Event(
                kind="go",
                text=f"Race {race.number}. {label}: {crash.name}. {crash.text()} Go!",
                data={"race": race.number, "crash": crash.id, "super": race.super},
            )
        ]

    def _race_over(self, state: PitFormulaState) -> bool:
        race = state.race
        if race.ended_by == "time_up":
            return True
        if state.settings.solo:
            if state.cars[0].flag is not None:
                race.ended_by = "flags"
                return True
            if state.cars[0].retired:
                race.ended_by = "retire"
                return True
            return False
        if len(race.flags_taken) >= race.flags:
            race.ended_by = "flags"
            return True
        if all(c.flag is not None or c.retired for c in state.cars):
            race.ended_by = "retire"
            return True
        return False

    def _finish_race(self, state: PitFormulaState) -> list[Event]:
        result = score_race(state)
        state.results.append(result)
        for cr in result.cars:
            state.cars[cr.car].score += cr.points
        if result.rival is not None:
            state.rival_score += result.rival.points
        if result.trophy is not None:
            if result.winner is not None:
                state.cars[result.winner].trophies.append(result.trophy)
            else:
                state.rival_trophies.append(result.trophy)
        events = [
            Event(
                kind="race_over",
                text=race_summary(state, result),
                data=result.model_dump(mode="json"),
            )
        ]
        self._reset(state, result)
        if self._championship_over(state):
            state.phase = "over"
            events.append(Event(kind="game_over", text="The championship is over."))
        else:
            state.phase = "ready"
        return events

    def _reset(self, state: PitFormulaState, result: RaceResult) -> None:
        """source: '4. Resetting for the next race' and 'Solo Rules', 'Preparing...'."""
        st = state.settings
        for slot, holder in enumerate(state.where):
            if holder >= 0:
                state.where[slot] = DISCARDED if st.solo else ON_TABLE
        if st.solo:
            if state.refill_wait > 0:
                state.refill_wait -= 1
            else:
                state.where = [ON_TABLE if w == DISCARDED else w for w in state.where]
                state.refill_wait = catalog().rivals[st.rival].rounds_without_refill
        for car in state.cars:
            for cs in car.cards:
                cs.tokens = []
                if cs.revealed:
                    part = SLOT_PART[cs.slot]
                    state.discards[part].append(cs.card)
                    cs.card = self._draw(state, part)
                    cs.revealed = False
            car.flag = None
            car.retired = False
            car.done_seq = None
        race = state.race
        assert race.crash is not None
        state.discards["super" if race.super else "crash"].append(race.crash)
        if result.winner is not None and not st.solo:
            state.starter = result.winner  # source: '4. Resetting...' (the winner draws)
        state.race = Race(number=race.number + 1, flags=race.flags)

    def _championship_over(self, state: PitFormulaState) -> bool:
        st = state.settings
        played = len(state.results)
        if st.points_target is None:
            return played >= st.races  # source: 'Ending conditions'
        scores = competitor_scores(state) + ([state.rival_score] if st.solo else [])
        # source: 'Points championship'; the 12-race cap is a Paddock rule
        return max(scores) >= st.points_target or played >= MAX_POINTS_RACES

    # queries ----------------------------------------------------------------------------------

    def to_act(self, state: PitFormulaState) -> list[int]:
        if state.phase == "ready":
            return sorted(state.cars[state.starter].seats)
        if state.phase == "repair":
            return sorted(
                s for c in state.cars if c.flag is None and not c.retired for s in c.seats
            )
        return []

    def legal_actions(self, state: PitFormulaState, seat: int) -> list[Action]:
        """What this seat may do now, at the race clock (at_ms None): every action but `Fix`,
        whose tokens are free-form, revealing one card at a time. `check_action` says exactly
        what `apply` accepts besides (a Fix, several cards revealed at once, a time)."""
        if seat not in self.to_act(state):
            return []
        if state.phase == "ready":
            return [Go(seat=seat)]
        car = state.cars[car_of_seat(state, seat)]
        out: list[Action] = []
        clock, deadline = state.race.clock_ms, state.race.deadline_ms
        if deadline is None or clock <= deadline:  # (a TimeUp ends the race at the deadline)
            hidden = [cs.slot for cs in car.cards if not cs.revealed]
            out += [Reveal(seat=seat, cards=[s]) for s in hidden]
            out += [Clear(seat=seat, card=cs.slot) for cs in car.cards if cs.tokens]
            if len(state.race.flags_taken) < state.race.flags:
                out.append(TakeFlag(seat=seat))
            out.append(Retire(seat=seat))
        if deadline is not None and clock >= deadline:
            out.append(TimeUp(seat=seat))
        return out

    def is_terminal(self, state: PitFormulaState) -> bool:
        return state.phase == "over"

    def classification(self, state: PitFormulaState) -> list[Placing]:
        st = state.settings
        if st.solo:
            # source: 'Solo Rules': a tie goes to the Rival; place 2 means the Rival won
            place = 1 if state.cars[0].score > state.rival_score else 2
            return [Placing(seat=s, place=place) for s in sorted(state.cars[0].seats)]
        groups = st.teams or [[i] for i in range(len(state.cars))]
        keys = [
            (
                sum(state.cars[c].score for c in g),
                sum(len(state.cars[c].trophies) for c in g),
            )
            for g in groups
        ]
        # source: 'Winner': points, then trophy tokens, then shared
        out = []
        for g, key in enumerate(keys):
            place = 1 + sum(1 for k in keys if k > key)
            for c in groups[g]:
                out += [Placing(seat=s, place=place) for s in state.cars[c].seats]
        return sorted(out, key=lambda p: (p.place, p.seat))

    def robot_action(self, state: PitFormulaState, seat: int) -> Action:
        from rules.pitformula.robot import robot_action

        return robot_action(state, seat)

    def simulation_config(
        self, players: int | None = None, mode: str | None = None, **_: Any
    ) -> dict[str, Any]:
        from rules.pitformula.simulate import simulation_config

        return simulation_config(players=players, mode=mode)

    def simulate(self, seed: int, **options: Any) -> dict[str, Any]:
        from rules.pitformula.simulate import simulate

        return simulate(self, seed, **options)

    # views ------------------------------------------------------------------------------------

    def public_view(self, state: PitFormulaState) -> dict[str, Any]:
        return public_view(state)

    def seat_view(self, state: PitFormulaState, seat: int) -> dict[str, Any]:
        view = public_view(state)
        car_i = car_of_seat(state, seat)
        car = state.cars[car_i]
        view["you"] = {
            "seat": seat,
            "car": car_i,
            "required": car.required.model_dump(),
            "missing": missing_repairs(car) if state.phase == "repair" else {},
            "cards": [card_view(state, cs) for cs in car.cards],
            "can_act": seat in self.to_act(state),
        }
        return view


# --- scoring --------------------------------------------------------------------------------


def judge_car(state: PitFormulaState, car: Car) -> tuple[list[str], list[str]]:
    """(correct card slots, wrong card slots) among the cards with tokens."""
    good, bad = [], []
    for cs in car.cards:
        if not cs.tokens:
            continue
        a, b = card_numbers(cs)
        if is_correct(SLOT_PART[cs.slot], a, b, token_digits(state, cs)):
            good.append(cs.slot)
        else:
            bad.append(cs.slot)
    return good, bad


def _part_points(slots: list[str]) -> int:
    ppp = catalog().components.points_per_part
    return sum(ppp[SLOT_PART[s]] for s in slots)


def flag_values(state: PitFormulaState, trophy: str | None) -> list[int]:
    st = state.settings
    if st.standard_score:
        # source: 'Standard score for races'
        n = 2 if st.solo else st.cars
        return list(catalog().components.standard_score[str(n)])
    if trophy is None:
        return [0, 0, 0]
    return list(catalog().trophies[trophy].points)  # source: '3. Counting the score'


def score_race(state: PitFormulaState) -> RaceResult:
    """source: pit-formula-rulebook.txt, '3. Counting the score for the race' and
    'Solo Rules', 'Scoring'."""
    st = state.settings
    race = state.race
    comp = catalog().components
    judged = [judge_car(state, car) for car in state.cars]
    missing = [missing_repairs(car) for car in state.cars]
    spares = [sum(cs.tokens.count(SPARE_SLOT) for cs in car.cards) for car in state.cars]
    assert race.crash is not None
    if st.solo:
        return _score_solo(state, judged[0], missing[0], spares[0])

    # source: '3. Counting the score': a player who made a mistake is penalised and never
    # receives a flag. A mistake is a card repaired wrongly; an empty card only for a player
    # who took a flag while it was required ("Cards left empty are not considered wrong").
    def penalized(i: int) -> bool:
        return bool(judged[i][1]) or (state.cars[i].flag is not None and bool(missing[i]))

    # a lost flag "must be passed to the player in the next place": the flag holders from gold
    # down, then the cars without a flag. Paddock rule (the rulebook has no retiring and no
    # order among cars without a flag): a car that retired receives no flag; the others come
    # in the order they had every required repair in place, then the rest by car number.
    holders = sorted(
        (c for c in range(len(state.cars)) if state.cars[c].flag is not None),
        key=lambda c: state.cars[c].flag or 0,
    )
    waiting = sorted(
        (
            c
            for c in range(len(state.cars))
            if state.cars[c].flag is None and not state.cars[c].retired
        ),
        key=lambda c: (state.cars[c].done_seq is None, state.cars[c].done_seq or 0, c),
    )
    receivers = [c for c in holders + waiting if not penalized(c)]
    in_play = len(race.flags_taken)
    final: dict[int, int] = {}
    for place, c in enumerate(receivers[:in_play]):
        final[c] = place
    unscored = list(range(min(in_play, len(receivers)), in_play))
    winner = next((c for c, f in final.items() if f == 0), None)
    trophy = state.trophy_stack[-1] if winner is not None and state.trophy_stack else None
    values = flag_values(state, trophy)
    cars = []
    for i, car in enumerate(state.cars):
        good, bad = judged[i]
        flag = final.get(i)
        fp = values[flag] if flag is not None and flag < len(values) else 0
        bonus = comp.super_crash_bonus if race.super and flag == 0 else 0
        pp = _part_points(good)
        pen = spare_penalty(spares[i])
        cars.append(
            CarResult(
                car=i,
                took_flag=car.flag,
                flag=flag,
                penalized=car.flag is not None and penalized(i),
                errors=bad,
                missing=missing[i],
                correct=good,
                flag_points=fp,
                super_bonus=bonus,
                part_points=pp,
                spares=spares[i],
                spare_penalty=pen,
                points=max(0, fp + bonus + pp - pen),  # never negative for a race
            )
        )
    if trophy is not None:
        state.trophy_stack.pop()
    return RaceResult(
        number=race.number,
        crash=race.crash,
        super=race.super,
        ended_by=race.ended_by,
        trophy=trophy,
        flag_values=values,
        winner=winner,
        unscored_flags=unscored,
        cars=cars,
    )


def _score_solo(
    state: PitFormulaState,
    judged: tuple[list[str], list[str]],
    missing: dict[str, int],
    spares: int,
) -> RaceResult:
    st = state.settings
    race = state.race
    comp = catalog().components
    car = state.cars[0]
    good, bad = judged
    won = car.flag == 0 and race.ended_by != "time_up" and not bad and not missing
    trophy = state.trophy_stack.pop() if state.trophy_stack else None
    values = flag_values(state, trophy)
    bonus = comp.super_crash_bonus if race.super else 0
    pp = _part_points(good)
    pen = spare_penalty(spares)
    fp = values[0] if won else 0
    player = CarResult(
        car=0,
        took_flag=car.flag,
        flag=0 if won else None,
        penalized=not won,
        errors=bad,
        missing=missing,
        correct=good,
        flag_points=fp,
        super_bonus=bonus if won else 0,
        part_points=pp,
        spares=spares,
        spare_penalty=pen,
        points=max(0, fp + (bonus if won else 0) + pp - pen),
    )
    # The Rival: points for each of your parts not repaired, face-down ones included, and for
    # each part repaired wrongly (times the Rival's multiplier)
    ppp = comp.points_per_part
    unrepaired = sum(ppp[SLOT_PART[cs.slot]] for cs in car.cards if not cs.tokens)
    mult = catalog().rivals[st.rival].error_multiplier
    errs = mult * _part_points(bad)
    rtp = 0 if won else values[0]
    rbonus = 0 if won else bonus
    rival = RivalResult(
        won=not won,
        trophy_points=rtp,
        super_bonus=rbonus,
        unrepaired_points=unrepaired,
        error_points=errs,
        points=rtp + rbonus + unrepaired + errs,
    )
    assert race.crash is not None
    return RaceResult(
        number=race.number,
        crash=race.crash,
        super=race.super,
        ended_by=race.ended_by,
        trophy=trophy,
        flag_values=values,
        winner=0 if won else None,
        unscored_flags=[],
        cars=[player],
        rival=rival,
    )


def race_summary(state: PitFormulaState, result: RaceResult) -> str:
    crash = catalog().crash_cards[result.crash].name
    bits = [f"Race {result.number} ({crash}) is over."]
    for cr in result.cars:
        flag = f" {FLAG_NAMES[cr.flag]} flag," if cr.flag is not None else ""
        err = f" errors on {', '.join(cr.errors)}," if cr.errors else ""
        bits.append(f"Car {cr.car + 1}:{flag}{err} {cr.points} points.")
    if result.rival is not None:
        who = "The Rival" if result.rival.won else "You"
        bits.append(f"{who} won the round; the Rival scores {result.rival.points}.")
    if result.unscored_flags:
        names = ", ".join(FLAG_NAMES[f] for f in result.unscored_flags)
        bits.append(f"Unscored flags: {names}.")
    return " ".join(bits)


# --- views ----------------------------------------------------------------------------------


def card_view(state: PitFormulaState, cs: CardSlot) -> dict[str, Any]:
    """A card as everyone sees it: numbers only when face up (source: '2. Repairing' A)."""
    out: dict[str, Any] = {"slot": cs.slot, "part": SLOT_PART[cs.slot], "revealed": cs.revealed}
    if cs.revealed:
        out["numbers"] = list(card_numbers(cs))
    out["tokens"] = [SPARE if t == SPARE_SLOT else coords.coord_of(t) for t in cs.tokens]
    out["faces"] = [SPARE if t == SPARE_SLOT else state.faces[t] for t in cs.tokens]
    return out


def public_view(state: PitFormulaState) -> dict[str, Any]:
    """Everything on the table. Face-down cards, deck order and the trophy stack stay hidden;
    whether a repair is right is not shown until the race is scored."""
    st = state.settings
    race = state.race
    crash = catalog().crash_cards[race.crash] if race.crash else None
    cars = []
    for i, car in enumerate(state.cars):
        cars.append(
            {
                "car": i,
                "seats": car.seats,
                "team": team_of_car(state, i),
                "score": car.score,
                "trophies": len(car.trophies),
                "required": car.required.model_dump() if state.phase == "repair" else None,
                "group": car.group,
                "flag": FLAG_NAMES[car.flag] if car.flag is not None else None,
                "retired": car.retired,
                "cards": [card_view(state, cs) for cs in car.cards],
                "spares": sum(cs.tokens.count(SPARE_SLOT) for cs in car.cards),
            }
        )
    view: dict[str, Any] = {
        "game": "pitformula",
        "settings": st.model_dump(mode="json", exclude={"skills"}),
        "phase": state.phase,
        "race": race.number,
        "races": st.races if st.points_target is None else None,
        "starter": state.starter,
        "starter_seats": state.cars[state.starter].seats,
        "crash": (
            {"id": crash.id, "name": crash.name, "kind": crash.kind, "text": crash.text()}
            if crash and state.phase == "repair"
            else None
        ),
        "super": race.super,
        "flags": [
            {
                "flag": FLAG_NAMES[f],
                "car": race.flags_taken[f] if f < len(race.flags_taken) else None,
            }
            for f in range(race.flags)
        ],
        "spares_left": race.spares_left,
        "clock_ms": race.clock_ms,
        "deadline_ms": race.deadline_ms,
        "table": table_layout(state),
        "discard": [coords.coord_of(s) for s, w in enumerate(state.where) if w == DISCARDED],
        "cars": cars,
        "scores": competitor_scores(state),
        "trophies_left": len(state.trophy_stack),
        "results": [r.model_dump(mode="json") for r in state.results],
    }
    if st.solo:
        view["rival"] = {
            "id": st.rival,
            "name": catalog().rivals[st.rival].name,
            "score": state.rival_score,
            "trophies": len(state.rival_trophies),
        }
    return view
