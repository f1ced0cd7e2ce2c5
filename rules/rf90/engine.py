"""The RF90 rules engine: set-up, qualification, the game turn, individual turns, robots.

`apply` first checks the action (`rules/rf90/legality.py`: exactly the actions `legal_actions`
lists, and the same with other card selections; anything else is an `IllegalAction` and nothing
changes), then deep-copies the state and works on the copy. After each accepted action the
engine advances on its own (robot cars, automatic steps) until a player's decision is needed or
the race is over, so `to_act` always names the seat(s) to decide next. The steps it is made of
are in `rules/rf90/mechanics.py` (importable from here too, as before).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from rules.base import Action, Event, Game, Placing
from rules.errors import BadConfig, IllegalAction, PlayerCount
from rules.rf90 import catalog as cat
from rules.rf90.legality import check_action, setup_problem
from rules.rf90.mechanics import (  # noqa: F401  (re-exported: importable from the engine)
    Ctx,
    base_chips,
    blind_check,
    blue_flag_yield,
    bonus_to_checks,
    can_pair,
    damage_capacity,
    damage_penalty,
    discard,
    draw_race,
    draw_track,
    enter_section,
    fit_tyres,
    fuel_chit,
    fuel_room,
    give_race_cards,
    give_track_cards,
    go_off_track,
    hand_limit,
    leader,
    max_fuel,
    move,
    move_back,
    must_yield,
    no_move,
    pay_tyres_auto,
    place_back,
    position_key,
    race_order,
    retire,
    robot_only,
    runs_wide_here,
    safety_car,
    section_full,
    skipped_aside,
    take_damage,
    target_check,
    teammates,
    weather_modifier,
)
from rules.rf90.spec import SPEC
from rules.rf90.state import (
    ACTION_ADAPTER,
    ROBOT_SEAT,
    Car,
    ChooseSetup,
    ChooseStart,
    Duel,
    DuelCards,
    DuelDeclare,
    EndTurn,
    Mulligan,
    Pending,
    PitStop,
    PlayCards,
    Qualify,
    RF90State,
    RobotToken,
    RobotTurn,
    Setup,
    StartTurn,
)

DUEL = -1  # _next_car: a duel was opened, loop again


# --- the game ----------------------------------------------------------------------------------


class RF90(Game[RF90State]):
    spec = SPEC
    name = SPEC.name
    title = SPEC.title
    state_type = RF90State
    action_adapter = ACTION_ADAPTER
    # Paddock rule (docs/rules/rf90.md, "Taking a move back"): not after a card is drawn,
    # turned over or shown for qualifying or a duel, a shuffle, a damage disc, a duel's
    # result, or the next section activated (Game.undo_refusal). A card play from the
    # driver's own hand, and the move it makes, show the driver nothing new: undoable when
    # nothing else did.
    undo_random: ClassVar[str] = "a deck has been shuffled or a damage disc drawn"
    undo_drawn: ClassVar[str] = "a card has been drawn"
    undo_reveals: ClassVar[Mapping[str, str]] = {
        "check": "a card has been turned over for a check",
        "qualifying": "the qualifying cards are face up",
        "duel_forced": "cards have been drawn for the duel",
        "duel_result": "the duel's cards are face up",
        "track_card": "a Track card has been drawn",
        "mulligan": "you have taken a new hand",
        "activate": "the next section has been activated",
    }

    # set-up -------------------------------------------------------------------------------

    def new_game(self, seed: int, config: dict[str, Any]) -> RF90State:
        from rules.rng import Rng

        track_name = config.get("track", "barcelona")
        race_turns = config.get("race_turns")  # a shortened race (Paddock rule)
        track = cat.track(track_name, race_turns)
        tables = cat.tables()
        players = config.get("players", [])
        if isinstance(players, int):
            players = [{} for _ in range(players)]
        if len(players) > 6:
            raise PlayerCount(
                "A race takes at most 6 drivers.", mode="race", least=0, most=6, given=len(players)
            )
        rng = Rng.from_seed(seed)
        cars: list[Car] = []
        colours = [p.get("colour") for p in players]
        for c in colours:
            if c is not None and c not in SPEC.colours:
                known = ", ".join(SPEC.colours)
                raise BadConfig(f"There is no {c!r} car: the colours are {known}.")
        taken = [c for c in colours if c is not None]
        if len(taken) != len(set(taken)):
            raise BadConfig("Two drivers chose the same colour: each needs a colour of their own.")
        free = iter(c for c in SPEC.colours if c not in taken)
        for seat, p in enumerate(players):
            colour = p.get("colour") or next(free)
            chosen = "setup" in p or "skill" in p  # fixed by the race configuration
            setup = Setup.model_validate(p.get("setup", {}))
            skill = p.get("skill")
            if chosen:
                problem = setup_problem(skill, setup.tyres, setup.wear, setup.cards)
                if problem:
                    raise BadConfig(f"Seat {seat}: {problem}")
            cars.append(
                Car(
                    id=seat,
                    seat=seat,
                    name=p.get("name", f"{colour.capitalize()} car"),
                    colour=colour,
                    skill=skill,
                    team=p.get("team"),
                    setup=setup,
                    setup_chosen=chosen,
                )
            )
        for team in {c.team for c in cars if c.team is not None}:
            if sum(1 for c in cars if c.team == team) > tables.teams.max_cars:
                raise BadConfig(f"Team {team!r} has more than {tables.teams.max_cars} cars.")
        n_players = max(1, len(players))
        robots = config.get("robots") or tables.robots.by_players[min(n_players, 6)]
        for rtype in ("superfast", "fast", "slow"):
            for k in range(robots.get(rtype, 0)):
                cars.append(
                    Car(
                        id=len(cars),
                        robot=rtype,
                        name=f"{rtype.capitalize()} robot {k + 1}",
                        colour=tables.robots.colours[rtype],
                    )
                )
        red, brown = tables.damage_bag.by_players[min(n_players, 6)]
        state = RF90State(
            rng=rng,
            track=track_name,
            race_turns=None if race_turns == cat.track(track_name).race_turns else race_turns,
            cars=cars,
            sections=[[] for _ in track.sections],
            race_draw=rng.shuffled(sorted(cat.race_deck())),
            track_draw=rng.shuffled(sorted(cat.track_deck(track_name))),
            bag_red=red,
            bag_brown=brown,
        )
        ctx = Ctx(state)
        if all(c.setup_chosen for c in state.cars):
            self._deal_hands(ctx)
        self._advance(ctx)
        return state

    def _deal_hands(self, ctx: Ctx) -> None:
        """After the set-up: each player draws hand size + 1 cards, in seat order."""
        for car in ctx.s.cars:
            if not car.is_robot:
                give_race_cards(ctx, car, hand_limit(car) + ctx.tables.setup.extra_starting_cards)
                if car.skill == "qualifying":
                    give_track_cards(ctx, car, 2)

    # engine interface ---------------------------------------------------------------------

    def to_act(self, state: RF90State) -> list[int]:
        s = state
        if s.phase == "setup":
            choosing = [c.seat for c in s.cars if c.seat is not None and not c.setup_chosen]
            if choosing:
                return choosing
            return [c.seat for c in s.cars if c.seat is not None and not c.mulligan_done]
        if s.phase == "qualifying":
            return [c.seat for c in s.cars if c.seat is not None and c.qual_card is None]
        if s.phase == "start":
            return [s.cars[s.grid_order[s.start_next]].seat]  # type: ignore[list-item]
        if s.phase == "race":
            if s.robot_next is not None:
                return [ROBOT_SEAT]
            if s.duel is not None and s.duel.stage == "cards":
                # the cards are picked face down, by everyone in the duel at once
                return [s.cars[c].seat for c in self._duel_pickers(s.duel)]  # type: ignore[misc]
            if s.duel is not None:
                cid = self._duel_next(s)
                return [s.cars[cid].seat] if cid is not None else []  # type: ignore[list-item]
            if s.pending is not None:
                return [s.cars[s.pending.car].seat]  # type: ignore[list-item]
        return []

    def is_terminal(self, state: RF90State) -> bool:
        return state.phase == "finished"

    def apply(self, state: RF90State, action: Action) -> tuple[RF90State, list[Event]]:
        ctx = self._apply(state, action, watch=False)
        return ctx.s, ctx.events

    def apply_owned(self, state: RF90State, action: Action) -> tuple[RF90State, list[Event]]:
        """`apply` without its deep copy of the state (nine tenths of an action's time: a
        whole race's log replays ~4x faster for the league site's race page). The
        handlers read and change only `ctx.s`, so the result is `apply`'s (an action refused
        may leave `state` half changed: its caller drops it)."""
        ctx = self._apply(state, action, watch=False, copy=False)
        return ctx.s, ctx.events

    def apply_watching(
        self, state: RF90State, action: Action
    ) -> tuple[RF90State, list[Event], list[tuple[int, RF90State]]]:
        """`apply`, and the state as each section activation ended during it: (section, state)
        pairs, so that a picture can be drawn after every activation (docs/architecture.md,
        "The life of one click")."""
        ctx = self._apply(state, action, watch=True)
        assert ctx.activations is not None
        return ctx.s, ctx.events, ctx.activations

    def apply_frames(
        self, state: RF90State, action: Action, *, owned: bool = False, snapshots: bool = True
    ) -> tuple[RF90State, list[Event], list[tuple[int, RF90State, int]]]:
        """`apply_watching`, each activation also telling how many of the events had happened
        when it ended: (section, state, event count), one picture and its lines each.
        `owned`: `apply_owned`'s way (no copy of `state`, which its caller never reads
        again). `snapshots=False`: each frame's state is the returned state itself, not a
        copy as the activation ended (what counts the pictures without drawing them; a
        long race's ~200 copies were most of its replay)."""
        ctx = self._apply(state, action, watch=True, copy=not owned, snapshots=snapshots)
        assert ctx.activations is not None
        frames = [
            (section, at, n)
            for (section, at), n in zip(ctx.activations, ctx.activation_events, strict=True)
        ]
        return ctx.s, ctx.events, frames

    def check_action(self, state: RF90State, action: Action) -> None:
        """Raise IllegalAction (NotYourTurn for a seat not to act) unless `apply` accepts this
        action now: one of `legal_actions`, or the same with other card selections
        (rules/rf90/legality.py; docs/rules/rf90.md, "What `apply` accepts")."""
        check_action(self, state, action)

    def _apply(
        self,
        state: RF90State,
        action: Action,
        watch: bool,
        copy: bool = True,
        snapshots: bool = True,
    ) -> Ctx:
        check_action(self, state, action)  # the handlers below apply a checked action
        ctx = Ctx(state.model_copy(deep=True) if copy else state, watch, snapshots)
        handler = {
            "choose_setup": self._choose_setup,
            "mulligan": self._mulligan,
            "qualify": self._qualify,
            "choose_start": self._choose_start,
            "start_turn": self._start_turn,
            "play_cards": self._play_cards,
            "end_turn": self._end_turn,
            "duel_declare": self._duel_declare,
            "duel_cards": self._duel_cards,
            "robot_turn": self._robot_turn_action,
        }[action.kind]
        handler(ctx, action)
        self._advance(ctx)
        return ctx

    def seat_car(self, state: RF90State, seat: int) -> Car:
        for c in state.cars:
            if c.seat == seat:
                return c
        raise IllegalAction(f"There is no seat {seat}.")

    # phase handlers -----------------------------------------------------------------------

    def _choose_setup(self, ctx: Ctx, a: Action) -> None:
        assert isinstance(a, ChooseSetup)
        s = ctx.s
        car = self.seat_car(s, a.seat)
        car.skill = a.skill
        car.setup = Setup(tyres=a.tyres, wear=a.wear, cards=a.cards)
        car.setup_chosen = True
        skill = f", skill {cat.name(a.skill)}" if a.skill else ""
        ctx.ev(
            "setup",
            f"{car.name} sets up: tyres {a.tyres}, wear {a.wear}, cards {a.cards}{skill}.",
            car=car.id,
        )
        if all(c.setup_chosen for c in s.cars):
            self._deal_hands(ctx)

    def _mulligan(self, ctx: Ctx, a: Action) -> None:
        assert isinstance(a, Mulligan)
        car = self.seat_car(ctx.s, a.seat)
        if a.swap:
            n = len(car.hand)
            for cid in car.hand:
                discard(ctx, cid)
            car.hand = []
            give_race_cards(ctx, car, n)
            ctx.ev("mulligan", f"{car.name} takes the substitute car (new hand).", car=car.id)
        car.mulligan_done = True
        if all(c.mulligan_done for c in ctx.s.cars if not c.is_robot):
            ctx.s.phase = "qualifying"

    def _qualify(self, ctx: Ctx, a: Action) -> None:
        assert isinstance(a, Qualify)
        car = self.seat_car(ctx.s, a.seat)
        car.hand.remove(a.card)
        car.qual_card = a.card
        car.qual_fuel = a.fuel
        if all(c.qual_card is not None for c in ctx.s.cars if not c.is_robot):
            self._resolve_qualifying(ctx)

    def _resolve_qualifying(self, ctx: Ctx) -> None:
        s, tables = ctx.s, ctx.tables
        for car in s.cars:
            if car.is_robot:
                continue
            card = ctx.cards[car.qual_card]  # type: ignore[index]
            car.qual_value = card.mp + tables.fuel.turns[car.qual_fuel]  # type: ignore[index]
            car.qual_value += 2 if car.skill == "qualifying" else 0
            car.qual_check = card.check_factor
            car.fuel_turn = car.qual_fuel  # type: ignore[assignment]
        for rtype in ("slow", "fast", "superfast"):
            robots = [c for c in s.cars if c.robot == rtype]
            tokens = s.rng.shuffled(tables.robots.fuel_tokens[rtype])
            for i, car in enumerate(robots):
                tok = tokens[i % len(tokens)]
                car.qual_value, car.qual_check = tok.value, tok.check
                s.robot_tokens.append(
                    RobotToken(robot=rtype, value=tok.value, check=tok.check, turn=tok.turn)
                )
        draw = {c.id: s.rng.random() for c in s.cars}
        order = sorted(s.cars, key=lambda c: (-(c.qual_value or 0), c.qual_check, draw[c.id]))
        s.grid_order = [c.id for c in order]
        grid = ctx.track.grid_sections()
        gi = 0
        for car in order:
            while len(s.sections[grid[gi]]) >= ctx.track.sections[grid[gi]].capacity:
                gi += 1
            place_back(ctx, car, grid[gi])
            car.lap = 0
        ctx.ev(
            "qualifying",
            "Grid: " + ", ".join(f"{i + 1}. {s.cars[c].name}" for i, c in enumerate(s.grid_order)),
            grid=s.grid_order,
        )
        wcard = draw_race(ctx)
        if wcard is not None:
            s.weather = tables.weather.space_for(ctx.cards[wcard].check_factor)
            s.race_discard.append(wcard)
        ctx.ev("weather", f"Weather: {tables.weather.spaces[s.weather].name}.", space=s.weather)
        space = tables.weather.spaces[s.weather]
        closest = space.closest if space.state == "uncertain" else space.state
        if closest == "middle":
            closest = "dry" if s.rng.below(2) == 0 else "rain"
        robot_tyre = "hard" if closest == "dry" else "wet"
        for car in s.cars:
            if car.is_robot:
                car.tyre = robot_tyre  # type: ignore[assignment]
        s.phase = "start"
        s.start_next = 0
        self._skip_robot_starts(ctx)

    def _skip_robot_starts(self, ctx: Ctx) -> None:
        s = ctx.s
        while s.start_next < len(s.grid_order) and s.cars[s.grid_order[s.start_next]].is_robot:
            s.start_next += 1
        if s.start_next >= len(s.grid_order):
            s.phase = "race"
            s.turn = 1
            self._begin_game_turn(ctx)

    def _choose_start(self, ctx: Ctx, a: Action) -> None:
        assert isinstance(a, ChooseStart)
        car = self.seat_car(ctx.s, a.seat)
        fit_tyres(ctx, car, a.tyres)
        car.strategy = a.strategy
        ctx.s.start_next += 1
        self._skip_robot_starts(ctx)

    # the game turn ------------------------------------------------------------------------

    def _begin_game_turn(self, ctx: Ctx) -> None:
        s = ctx.s
        s.duelled = []
        s.active_section = None
        s.active_leader = None
        s.yellow_flags = []
        for car in s.cars:
            car.mark = None
        # No list of cars is set aside at the turn start: the cars in front of the leader in its
        # section play last only while the Leader token stays there (see `activation_pieces`).
        s.deferred = []
        for tok in s.robot_tokens:
            if tok.done or tok.turn != s.turn:
                continue
            tok.done = True
            cands = [
                cid
                for cid in race_order(ctx)
                if s.cars[cid].robot == tok.robot
                and not s.cars[cid].robot_pitted
                and not s.cars[cid].robot_pit_due
            ]
            if cands:
                s.cars[cands[0]].robot_pit_due = True
        stage = ctx.track.stage(s.turn)
        ctx.ev("turn", f"Turn {s.turn} (stage {stage}).", turn=s.turn, stage=stage)
        if s.turn > 1 and s.turn in ctx.track.stages:
            self._stage_events(ctx, stage)

    def _stage_events(self, ctx: Ctx, stage: int) -> None:
        """A new race stage: weather forecast and debris (Paddock rule, `stage_events`)."""
        s, se, wt = ctx.s, ctx.tables.stage_events, ctx.tables.weather
        cid = draw_race(ctx)
        if cid is None:
            return
        s.race_discard.append(cid)
        card = ctx.cards[cid]
        aim = wt.space_for(card.check_factor)
        step = max(-se.weather_steps, min(se.weather_steps, aim - s.weather))
        ctx.ev(
            "stage",
            f"Stage {stage} begins: forecast card {card.check_factor}.",
            stage=stage,
            card=cid,
            forecast=aim,
        )
        if step:
            s.weather += step
            ctx.ev("weather", f"Weather: {wt.spaces[s.weather].name}.", space=s.weather)
            self._robots_weather(ctx)
        if se.flag_safety_car and card.flag:
            s.safety_car_until = max(s.safety_car_until, s.turn + ctx.tables.flags.safety_car_turns)
            ctx.ev("safety_car", "Debris: the safety car comes out.", until=s.safety_car_until)

    def _advance(self, ctx: Ctx) -> None:
        """Run automatic steps until a player must decide or the race ends."""
        s = ctx.s
        if s.phase == "setup" and not any(not c.is_robot for c in s.cars):
            s.phase = "qualifying"
        if s.phase == "qualifying" and not any(not c.is_robot for c in s.cars):
            self._resolve_qualifying(ctx)
        while s.phase == "race":
            if s.duel is not None:
                if self._duel_auto(ctx):
                    return
                continue
            if s.pending is not None or s.robot_next is not None:
                return
            nxt = self._next_car(ctx)
            if nxt == DUEL:
                continue
            if nxt is None:
                self._end_game_turn(ctx)
                continue
            car = s.cars[nxt]
            if car.is_robot and robot_only(s):
                s.robot_next = car.id  # played through a RobotTurn action
                return
            if car.is_robot:
                self._robot_turn(ctx, car)
            else:
                self._begin_individual(ctx, car)

    def activation_pieces(self, ctx: Ctx) -> tuple[int | None, list[tuple[int, list[int]]]]:
        """The leader and the (sub)sections in activation order, each with its cars front first.

        Always from where the Leader token is now (rf90-how-to-play, Activate Section: "The next
        section to be activated is the section immediately behind the leader that contains cars
        that have not yet been activated"): the leader's section, then each section behind it
        round the track. The Leader token splits its section (FAS third case): the leader and the
        cars behind come first, the cars in front of the leader (lapped cars) come last, being
        behind everybody else. Once the leader has left that section ("When the Leader moves to
        another section ..."), its cars, lapped ones included, are one section behind the new
        FAS and play in their order when it is reached.
        """
        s = ctx.s
        lead = leader(ctx)
        if lead is None:
            return None, []
        n = ctx.track.length
        off: dict[int, list[int]] = {}
        for c in s.cars:
            if c.running and c.off_track:
                off.setdefault(c.section, []).append(c.id)
        lcar = s.cars[lead]
        lsec = lcar.section
        cars_l = s.sections[lsec]
        li = len(cars_l) if lcar.off_track else cars_l.index(lead)
        pieces = [(lsec, cars_l[li:] + off.get(lsec, []))]
        for k in range(1, n):
            sec = (lsec - k) % n
            pieces.append((sec, s.sections[sec] + off.get(sec, [])))
        if li > 0:
            pieces.append((lsec, cars_l[:li]))
        return lead, pieces

    def _next_car(self, ctx: Ctx) -> int | None:
        s = ctx.s
        lead, pieces = self.activation_pieces(ctx)
        if lead is None:
            return None
        if s.cars[lead].mark is None:  # first activation of the FAS: only the leader plays
            self._start_activation(ctx, s.cars[lead].section)
            return lead
        lsec = s.cars[lead].section
        for i, (sec, cars) in enumerate(pieces):
            unmoved = [c for c in cars if s.cars[c].mark is None]
            if not unmoved:
                continue
            # the part of the leader's section in front of the leader (lapped cars) is the last
            # piece; it is activated on its own, marked by no leader (FAS third case)
            by = None if i > 0 and sec == lsec and i == len(pieces) - 1 else lead
            fresh = sec != s.active_section or by != s.active_leader
            if fresh:  # a new activation (a restart from a new leader activates again)
                s.active_section, s.active_leader = sec, by
                self._start_activation(ctx, sec)
            on_track = [c for c in unmoved if not s.cars[c].off_track]
            if (
                ctx.track.sections[sec].kind == "curve"
                and fresh
                and not safety_car(ctx)
                and len(on_track) >= 2
                and any(not s.cars[c].is_robot for c in on_track)
            ):  # off-track cars waiting to re-enter take no part and play after the duel
                s.duelled.append(sec)
                s.duel = Duel(section=sec, order=on_track)
                return DUEL
            return unmoved[0]
        return None

    def _start_activation(self, ctx: Ctx, section: int) -> None:
        """A section (or the part of one) is activated: the one before it has ended."""
        self._end_activation(ctx)
        ctx.s.activation = section
        ctx.ev("activate", f"Section {section} is activated.", section=section, turn=ctx.s.turn)

    def _end_activation(self, ctx: Ctx) -> None:
        s = ctx.s
        if s.activation is not None and ctx.activations is not None:
            ctx.activations.append((s.activation, s.model_copy(deep=True) if ctx.snapshots else s))
            ctx.activation_events.append(len(ctx.events))
        s.activation = None

    def _end_game_turn(self, ctx: Ctx) -> None:
        s = ctx.s
        self._end_activation(ctx)
        ctx.ev("turn_end", f"End of turn {s.turn}.", turn=s.turn)
        if s.turn >= ctx.track.race_turns or not any(c.running for c in s.cars):
            s.phase = "finished"
            order = race_order(ctx)
            win = s.cars[order[0]].name if order else "nobody"
            ctx.ev("finish", f"The race is over: {win} wins.", order=order)
            return
        s.turn += 1
        self._begin_game_turn(ctx)

    # robots -------------------------------------------------------------------------------

    def _robot_weather_tyre(self, ctx: Ctx) -> str | None:
        """The tyres robots want in this weather (hard for dry, wet for rain), None in the
        middle space (robots keep their tyres there, Paddock rule)."""
        space = ctx.tables.weather.spaces[ctx.s.weather]
        closest = space.closest if space.state == "uncertain" else space.state
        if closest == "middle":
            return None
        return "hard" if closest == "dry" else "wet"

    def _robots_weather(self, ctx: Ctx) -> None:
        """After a weather change: robots whose tyres no longer suit the weather stop again (HTP,
        Fuel Management: robots pit once "unless weather changes"), at most
        `robots.weather_stops` times per race (Paddock rule; a fuel stop also fits the weather's
        tyres and is not counted). A change back cancels a stop not yet made."""
        tyre = self._robot_weather_tyre(ctx)
        if tyre is None:
            return
        limit = ctx.tables.robots.weather_stops
        for car in ctx.s.cars:
            if not (car.is_robot and car.running):
                continue
            if car.tyre == tyre:
                if car.robot_weather_pit is not None:
                    car.robot_weather_pit = None
                    ctx.ev("robot_tyres", f"{car.name} keeps its {tyre} tyres.", car=car.id)
                continue
            if car.robot_weather_stops >= limit:
                continue
            if car.robot_weather_pit != tyre:
                car.robot_weather_pit = tyre  # type: ignore[assignment]
                ctx.ev("robot_tyres", f"{car.name} will pit for {tyre} tyres.", car=car.id)

    def _robot_late_brake(self, ctx: Ctx, car: Car) -> None:
        """A robot ending its move at a late brake point behind another car tries to pass it:
        blind check against the printed target; a failure has no cost (Paddock rule)."""
        sec = ctx.track.sections[car.section]
        lst = ctx.s.sections[car.section]
        if car.off_track or sec.late_brake is None or lst.index(car.id) == 0:
            return
        cid = draw_race(ctx)
        cf = ctx.cards[cid].check_factor if cid is not None else 99
        if cid is not None:
            ctx.s.race_discard.append(cid)
        ok = cf < sec.late_brake.target
        ctx.ev(
            "check",
            f"{car.name}: Late braking check {cf} vs {sec.late_brake.target}: "
            + ("passed." if ok else "failed."),
            car=car.id,
            ok=ok,
        )
        if ok:
            lst.remove(car.id)
            lst.insert(0, car.id)
            ctx.ev("late_brake", f"{car.name} brakes late and passes.", car=car.id)

    def _robot_turn_action(self, ctx: Ctx, a: Action) -> None:
        assert isinstance(a, RobotTurn)
        s = ctx.s
        s.robot_next = None
        self._robot_turn(ctx, s.cars[a.car])

    def _robot_turn(self, ctx: Ctx, car: Car) -> None:
        s, rt = ctx.s, ctx.tables.robots
        assert car.robot is not None
        if car.off_track and car.robot_pit_due:  # it cannot pit from off the track
            retire(ctx, car, "out of fuel", "off track on its refuelling turn")
            return
        if (car.robot_pit_due or car.robot_weather_pit) and not car.off_track:
            if car.robot_pit_due:
                car.robot_pitted = True
                tyre = self._robot_weather_tyre(ctx)  # a fuel stop fits the weather's tyres
                if tyre is not None:
                    car.tyre = tyre  # type: ignore[assignment]
            elif car.robot_weather_pit:
                car.robot_weather_stops += 1
            car.robot_pit_due = False
            if car.robot_weather_pit:
                car.tyre = car.robot_weather_pit
                car.robot_weather_pit = None
            car.pit_stops += 1
            car.trajectory = None
            move_back(ctx, car, ctx.track.pit_sections)
            ctx.ev("pit", f"{car.name} pits.", car=car.id)
        elif self._robot_mistake(ctx, car):
            car.mark = "ended"
            return
        mp = rt.speed[car.robot]
        if car.off_track:  # re-entering after running wide: the off-track penalty
            mp -= car.off_penalty
            car.off_penalty = 0
        if car.trajectory:
            mp += ctx.track.trajectory(car.trajectory).bonus
            car.trajectory = None
        if ctx.track.sections[car.section].kind == "curve" and not car.off_track:
            mp += rt.corner_bonus[car.robot]
        if safety_car(ctx):
            mp = min(mp, ctx.tables.flags.safety_car_max_mp)
        car.last_mp = mp
        steps = move(ctx, car, mp)
        ctx.ev(
            "move",
            f"{car.name} moves {steps} section(s).",
            car=car.id,
            mp=mp,
            steps=steps,
            turn=s.turn,
        )
        car.mark = "ended"
        if car.running:
            self._robot_late_brake(ctx, car)
        blue_flag_yield(ctx, car)
        self._occupy_best(ctx, car, allow_extreme=False)

    def _robot_mistake(self, ctx: Ctx, car: Car) -> bool:
        """A robot starting its turn in a curve with an off-track trajectory reveals the top Race
        card and runs wide on a high check factor (Paddock rule, `off_track.robot_mistake_from`);
        it pays nothing and ignores the card symbol (EXP, Off-track Discard Card symbol)."""
        sec = ctx.track.sections[car.section]
        limit = ctx.tables.off_track.robot_mistake_from
        if car.off_track or sec.kind != "curve" or sec.off_track is None or limit > 99:
            return False
        cid = draw_race(ctx)
        if cid is None:
            return False
        ctx.s.race_discard.append(cid)
        if ctx.cards[cid].check_factor < limit:
            return False
        ctx.ev("runs_wide", f"{car.name} runs wide at {sec.name}.", car=car.id)
        car.trajectory = None
        go_off_track(ctx, car, sec.index)
        no_move(ctx, car)
        return True

    def _occupy_best(self, ctx: Ctx, car: Car, allow_extreme: bool) -> None:
        if car.off_track or not car.running:
            return
        free = self.free_trajectories(ctx.s, car.section)
        free = [t for t in free if allow_extreme or ctx.track.trajectory(t).kind != "extreme"]
        if free:
            best = max(free, key=lambda t: (ctx.track.trajectory(t).bonus, t))
            car.trajectory = best

    def free_trajectories(self, state: RF90State, section: int) -> list[str]:
        track = cat.track(state.track, state.race_turns)
        taken = {c.trajectory for c in state.cars if c.trajectory and c.running}
        return [t.id for t in track.sections[section].trajectories if t.id not in taken]

    # individual turns (players) -----------------------------------------------------------

    def _begin_individual(self, ctx: Ctx, car: Car) -> None:
        s = ctx.s
        if car.off_track and car.fuel_turn <= s.turn:
            retire(ctx, car, "out of fuel", "off track on its refuelling turn")
            return
        ahead = [c for c in race_order(ctx)]
        idx = ahead.index(car.id)
        s.pending = Pending(
            car=car.id,
            phase="A",
            trajectory=car.trajectory,
            start_section=car.section,
            start_lap=car.lap,
            ahead_at_start=ahead[:idx],
        )

    def _pending_car(self, ctx: Ctx) -> tuple[Pending, Car]:
        """The individual turn in progress and its car (check_action made sure of both)."""
        p = ctx.s.pending
        assert p is not None
        return p, ctx.s.cars[p.car]

    def _start_turn(self, ctx: Ctx, a: Action) -> None:
        assert isinstance(a, StartTurn)
        s = ctx.s
        p, car = self._pending_car(ctx)
        if a.new_strategy is not None:
            car.strategy = a.new_strategy
        if a.skip:
            car.mark = "skipped"
            car.trajectory = None
            s.pending = None
            ctx.ev("skip", f"{car.name} skips the turn.", car=car.id, turn=s.turn)
            blue_flag_yield(ctx, car)
            return
        if a.wise_driving is not None:
            for cid in a.wise_driving:
                car.hand.remove(cid)
                discard(ctx, cid)
            races = sum(1 for c in car.hand if c <= cat.TRACK_CARD_BASE)
            give_race_cards(ctx, car, max(0, hand_limit(car) - races))
            car.wise_used = True
            ctx.ev("wise_driving", f"{car.name} uses Wise Driving.", car=car.id)
        if a.pit is not None:
            self._pit(ctx, car, a.pit)
            p.trajectory = None
        if a.extreme:
            assert p.trajectory is not None
            traj = ctx.track.trajectory(p.trajectory)
            assert traj.target is not None
            ok = blind_check(ctx, car, traj.target + bonus_to_checks(car), "Extreme Trajectory")
            if ok:
                p.extreme_ok = True
            else:
                car.trajectory = None
                p.trajectory = None
                corner = ctx.track.next_corner(car.section)
                if corner is not None and corner.off_track is not None:
                    # off the track: the turn ends at the re-entry point (phase E), no draw
                    go_off_track(ctx, car, corner.index, a.off_track_pay)
                    if car.running:
                        no_move(ctx, car)
                        p.phase = "E"
                        return
                else:
                    take_damage(ctx, car, 1)
                if not car.running:
                    s.pending = None
                    return
        # phase B: draw
        if a.save_fuel_discard is not None:
            car.hand.remove(a.save_fuel_discard)
            discard(ctx, a.save_fuel_discard)
            n = 2
        else:
            n = 1
        before = len(car.hand)
        give_race_cards(ctx, car, n)
        p.drawn = car.hand[before:]
        p.phase = "B"

    def _pit(self, ctx: Ctx, car: Car, pit: PitStop) -> None:
        s, fuel = ctx.s, ctx.tables.fuel
        back = ctx.track.pit_sections - (2 if car.skill == "pitting" else 0)
        car.trajectory = None
        move_back(ctx, car, max(1, back) + pit.extra_sections)
        car.fuel_turn = s.turn + fuel.per_stop + fuel.per_extra_section * pit.extra_sections
        s.bag_red += car.damage_red
        car.damage_red = 0
        fit_tyres(ctx, car, pit.tyres)
        if pit.strategy:
            car.strategy = pit.strategy
        car.wise_used = False
        if car.skill == "wise_driving":
            have = sum(1 for c in car.hand if c <= cat.TRACK_CARD_BASE)
        else:
            have = len(car.hand)
        give_race_cards(ctx, car, max(0, hand_limit(car) - have))
        if car.skill == "pitting":
            give_track_cards(ctx, car, 2, " (Pitting)")
        car.pit_stops += 1
        chit, over = fuel_chit(s, car)
        ctx.ev(
            "pit",
            f"{car.name} pits: fuel to turn {car.fuel_turn}"
            + (f" (chit on {chit}, over the top)" if over else "")
            + ".",
            car=car.id,
            fuel_turn=car.fuel_turn,
        )

    def _play_cards(self, ctx: Ctx, a: Action) -> None:
        assert isinstance(a, PlayCards)
        s = ctx.s
        p, car = self._pending_car(ctx)
        cards = a.cards
        played = [ctx.cards[c] for c in cards]
        push_pair = len(played) == 2 and can_pair(played[0], played[1], car.strategy == "push")[1]
        rest = [c for c in car.hand if c not in cards]
        traj = ctx.track.trajectory(p.trajectory) if p.trajectory else None
        use_traj = bool(a.use_trajectory and traj is not None)
        if use_traj and traj is not None:
            if not any(c.colour in traj.colours for c in played):
                use_traj = False  # no card of the trajectory's colour: no bonus, no cost
            if traj.kind == "extreme" and not p.extreme_ok:
                use_traj = False
        sharp = use_traj and traj is not None and traj.kind == "sharp"
        sharp_cost = traj.cost if (sharp and traj is not None) else cat.Cost()
        sharp_discard: int | None = None
        if sharp_cost.cards:  # chosen, or else the lowest card neither played nor paying tyres
            pool = [c for c in rest if c not in a.tyre_cards]
            sharp_discard = a.sharp_discard
            if sharp_discard is None:
                sharp_discard = min(pool, key=lambda c: (ctx.cards[c].mp, c))
        # Phase B ends: the cards are played
        for cid in cards:
            car.hand.remove(cid)
        car.trajectory = None
        if push_pair:
            car.fuel_turn -= 1
            ctx.ev("push", f"{car.name} pushes: refuelling chit one turn earlier.", car=car.id)
            if car.fuel_turn <= s.turn:
                for cid in cards:
                    discard(ctx, cid)
                retire(ctx, car, "out of fuel", "the refuelling chit reached the current turn")
                s.pending = None
                return
        # Phase C: pay resources
        tyres = sum(c.tyres for c in played) + sharp_cost.tyres
        asked = tyres
        if car.strategy == "save_tyres" and tyres > 0:
            tyres -= 1
        balance = 0
        if a.balance_damage:
            tyres -= 1
            balance = 1
        by_cards = min(len(a.tyre_cards), tyres)
        for cid in a.tyre_cards[:by_cards]:
            car.hand.remove(cid)
            discard(ctx, cid)
        chips = min(car.chips, tyres - by_cards)
        car.chips -= chips
        short = tyres - by_cards - chips
        damage = sum(c.damage for c in played) + sharp_cost.damage + short + balance
        if sharp_discard is not None:
            car.hand.remove(sharp_discard)
            discard(ctx, sharp_discard)
        ctx.ev(
            "pay",
            f"{car.name} pays {tyres} tyre(s): {chips} chip(s) and {by_cards} card(s).",
            car=car.id,
            tyres=tyres,
            chips=chips,
            cards=by_cards,
        )
        drawn_damage = take_damage(ctx, car, damage) if damage else 0
        if not car.running:
            for cid in cards:
                discard(ctx, cid)
            s.pending = None
            return
        # phase C in EXP's order: pay, perform checks, draw cards, play flags, change weather
        mp_cards = 0
        blind = False
        wide = False  # a failed green check in a corner with an off-track trajectory
        target = target_check(ctx, car)
        for c in played:
            if c.check:
                blind = True
                if not blind_check(ctx, car, target, f"{c.colour} +{c.mp}"):
                    wide = wide or runs_wide_here(ctx, car)
                    continue
            mp_cards += c.mp
        give_race_cards(ctx, car, sum(c.draw for c in played))
        if any(c.flag for c in played) and car.section not in s.yellow_flags:
            s.yellow_flags.append(car.section)
            ctx.ev(
                "yellow_flag", f"{car.name} shows a yellow flag.", car=car.id, section=car.section
            )
        weather = sum(c.weather for c in played)
        if weather:
            nspaces = len(ctx.tables.weather.spaces)
            s.weather = max(0, min(nspaces - 1, s.weather + weather))
            ctx.ev("weather", f"Weather: {ctx.tables.weather.spaces[s.weather].name}.")
            self._robots_weather(ctx)
        # Specials
        small = all(c.mp <= 2 for c in played)
        if car.strategy == "push" and chips >= 2 and by_cards == 0:
            give_track_cards(ctx, car, 1, " (Push special)")
        if car.strategy == "save_fuel" and small:
            if a.save_fuel_choice == "fuel":
                car.fuel_turn += 1
                ctx.ev("save_fuel", f"{car.name} saves fuel: chit one turn later.", car=car.id)
            else:
                give_track_cards(ctx, car, 1, " (Save Fuel special)")
        if car.strategy == "save_tyres" and asked > 0 and tyres == 0:
            give_track_cards(ctx, car, 1, " (Save Tyres special)")
        if car.strategy == "balance" and tyres >= 1 and tyres == drawn_damage:
            give_track_cards(ctx, car, 1, " (Balance special)")
        if car.strategy == "lucky" and any(  # a pair: the draw and another card played
            ctx.cards[d].mp in {c.mp for c in played if c.id != d} for d in p.drawn
        ):
            give_track_cards(ctx, car, 1, " (Lucky special)")
        if (
            car.strategy == "consistency"
            and len(played) == 2
            and played[0].colour == played[1].colour
        ):
            give_track_cards(ctx, car, 1, " (Consistency special)")
        # Phase D: movement
        if wide:
            for cid in cards:
                discard(ctx, cid)
            ctx.ev("runs_wide", f"{car.name} loses control and runs wide.", car=car.id)
            go_off_track(ctx, car, car.section, a.off_track_pay)
            no_move(ctx, car)
            if not car.running:
                s.pending = None
                return
            p.phase = "E"
            return
        mp = mp_cards
        if use_traj and traj is not None:
            mp += traj.bonus
        if a.blue_bonus:
            car.blue -= 1
            mp += 1
        if car.strategy == "hazard":
            mp += drawn_damage
        mp += weather_modifier(ctx, car)
        hurt = damage_penalty(car)
        if hurt:
            mp -= hurt
            ctx.ev("damaged", f"{car.name} is damaged: {hurt} MP less.", car=car.id, mp=-hurt)
        slip_ahead: list[int] = []
        if car.strategy == "slipstream" and not car.off_track:
            # in the wake of a car in the section ahead, on a straight or braking section
            slip_ahead = list(s.sections[(car.section + 1) % ctx.track.length])
            if slip_ahead and ctx.track.sections[car.section].kind != "curve":
                mp += 1
        chasing = not car.off_track and s.sections[car.section].index(car.id) > 0
        if car.strategy == "chase" and chasing:  # a car in front of it, in its own section
            mp += 1
        if car.off_track:
            mp -= car.off_penalty
            car.off_penalty = 0
        mp = max(0, mp)
        if safety_car(ctx):
            mp = min(mp, ctx.tables.flags.safety_car_max_mp)
        if car.strategy == "hazard" and mp >= 6 and (drawn_damage or blind):
            give_track_cards(ctx, car, 1, " (Hazard special)")
        for cid in cards:
            discard(ctx, cid)
        car.last_mp = mp
        steps = move(ctx, car, mp, unlap=a.unlap)
        ctx.ev(
            "move",
            f"{car.name} moves {steps} section(s) with {mp} MP.",
            car=car.id,
            mp=mp,
            steps=steps,
            turn=s.turn,
        )
        if car.strategy in ("chase", "slipstream"):
            passed = [c for c in p.ahead_at_start if s.cars[c].running]
            if (
                car.strategy == "chase"
                and steps > 0
                and any(
                    s.cars[c].section == car.section and not s.cars[c].off_track for c in passed
                )
            ):
                give_track_cards(ctx, car, 1, " (Chase special)")
            if (
                car.strategy == "slipstream"
                and car.running
                and self._passed_on_track(ctx, car, steps, slip_ahead)
            ):
                give_track_cards(ctx, car, 1, " (Slipstream special)")
        p.phase = "E"

    def _passed_on_track(self, ctx: Ctx, car: Car, steps: int, ahead: list[int]) -> bool:
        """Whether a car that moved `steps` sections now stands ahead, on the track (laps do not
        count), of one of the cars that were in the section right ahead of it."""
        if steps > 1:
            return bool(ahead)
        if steps == 1:  # same section: in front of it (passing a car that skipped its turn)
            lst = ctx.s.sections[car.section]
            return any(c in lst and lst.index(car.id) < lst.index(c) for c in ahead)
        return False

    def _end_turn(self, ctx: Ctx, a: Action) -> None:
        assert isinstance(a, EndTurn)
        s = ctx.s
        _p, car = self._pending_car(ctx)
        sec = ctx.track.sections[car.section]
        if a.late_brake and sec.late_brake is not None:
            target = sec.late_brake.target + bonus_to_checks(car)
            if blind_check(ctx, car, target, "Late braking"):
                s.sections[car.section].remove(car.id)
                s.sections[car.section].insert(0, car.id)
                ctx.ev("late_brake", f"{car.name} brakes late and passes.", car=car.id)
            else:
                corner = ctx.track.next_corner(car.section)
                if corner is not None and corner.off_track is not None:
                    go_off_track(ctx, car, corner.index, a.off_track_pay)
                else:
                    take_damage(ctx, car, 1)
        if (
            car.running
            and not car.off_track
            and a.trajectory is not None
            and a.trajectory in self.free_trajectories(s, car.section)
        ):
            car.trajectory = a.trajectory
        car.mark = "ended"
        s.pending = None
        blue_flag_yield(ctx, car)

    # duels --------------------------------------------------------------------------------

    def _duel_asking_order(self, duel: Duel) -> list[int]:
        """Who is asked, in order: from the back until a challenger, then those ahead of it."""
        return list(reversed(duel.order))

    def _duel_next(self, s: RF90State) -> int | None:
        """The car whose answer the duel waits for (None when nobody)."""
        d = s.duel
        if d is None:
            return None
        if d.stage == "declare":
            for cid in self._duel_asking_order(d):
                if cid not in d.asked:
                    return cid
            return None
        for answering in [d.challenger, *d.joined]:
            if answering is not None and answering not in d.cards:
                return answering
        return None

    @staticmethod
    def _duel_pickers(duel: Duel) -> list[int]:
        """The cars in the duel that have not put their cards down yet."""
        return [c for c in [duel.challenger, *duel.joined] if c is not None and c not in duel.cards]

    def _duel_auto(self, ctx: Ctx) -> bool:
        """Answer for robots; resolve when complete. True when a player must answer."""
        s = ctx.s
        while s.duel is not None:
            d = s.duel
            cid = self._duel_next(s)
            if cid is None:
                if d.stage == "declare":
                    if d.challenger is None:
                        s.duel = None
                        return False
                    d.stage = "cards"
                    continue
                self._resolve_duel(ctx)
                return False
            car = s.cars[cid]
            if (
                d.stage == "declare"
                and d.challenger is not None
                and ctx.tables.lapping.lapped_car_yields
                and must_yield(car, s.cars[d.challenger])
            ):
                self._duel_answer(ctx, cid, join=False)
                ctx.ev(
                    "blue_flag_yield",
                    f"{car.name} is lapped and may not fight "
                    f"{s.cars[d.challenger].name}: it refuses the duel.",
                    car=cid,
                    passed_by=[d.challenger],
                )
                continue
            if d.stage == "cards":
                # Robots draw theirs at once (in the same order as one by one: a person's
                # pick takes nothing from the deck); then the people pick, in any order.
                for robot in [c for c in self._duel_pickers(d) if s.cars[c].is_robot]:
                    top = draw_race(ctx)
                    d.cards[robot] = [top] if top is not None else []
                if self._duel_pickers(d):
                    return True
                continue
            if not car.is_robot:
                return True
            self._duel_answer(ctx, cid, join=d.challenger is not None)
        return False

    def _duel_answer(self, ctx: Ctx, cid: int, join: bool) -> None:
        d = ctx.s.duel
        assert d is not None
        d.asked.append(cid)
        if d.challenger is None:
            if join:
                d.challenger = cid
                ctx.ev("duel", f"{ctx.car(cid).name} challenges.", car=cid)
        elif join:
            d.joined.append(cid)
        else:
            d.refused.append(cid)

    def _duel_declare(self, ctx: Ctx, a: Action) -> None:
        assert isinstance(a, DuelDeclare)
        cid = self._duel_next(ctx.s)  # the car asked: the seat's own (check_action)
        assert cid is not None
        self._duel_answer(ctx, cid, a.join)

    def _duel_cards(self, ctx: Ctx, a: Action) -> None:
        assert isinstance(a, DuelCards)
        s = ctx.s
        d = s.duel
        assert d is not None
        cid = next(c for c in self._duel_pickers(d) if s.cars[c].seat == a.seat)
        car = s.cars[cid]
        for c in a.cards:
            car.hand.remove(c)
        d.cards[cid] = list(a.cards)

    def _resolve_duel(self, ctx: Ctx) -> None:
        s = ctx.s
        d = s.duel
        assert d is not None and d.challenger is not None
        sec = ctx.track.sections[d.section]
        assert sec.corner is not None
        mods = sec.corner.duel_modifiers
        lst = s.sections[d.section]
        totals: dict[int, int] = {}
        ch = s.cars[d.challenger]
        if not ch.is_robot and any(ctx.cards[c].colour == "orange" for c in d.cards.get(ch.id, [])):
            # an orange card forces the robots behind the challenger to contest (designer's FAQ)
            ci = d.order.index(d.challenger)
            forced = [c for c in d.order[ci + 1 :] if s.cars[c].is_robot and c not in d.cards]
            for cid in forced:
                top = draw_race(ctx)
                d.cards[cid] = [top] if top is not None else []
                d.joined.append(cid)
            if forced:
                names = ", ".join(s.cars[c].name for c in forced)
                ctx.ev("duel_forced", f"{names} forced to contest.", cars=forced)
        participants = [c for c in [d.challenger, *d.joined] if d.cards.get(c)]
        for cid in participants:
            pos = lst.index(cid)
            total = sum(ctx.cards[c].mp for c in d.cards[cid])
            if pos > 0:
                total += mods[min(pos, len(mods) - 1)]
            if s.cars[cid].strategy == "banging_wheels":
                total += 3
            totals[cid] = total
        # in the duel's order, not the order the cards were put down (picks are at once)
        seated = [c for c in [d.challenger, *d.joined] if c in d.cards]
        for cid in [*seated, *(c for c in d.cards if c not in seated)]:
            for c in d.cards[cid]:
                discard(ctx, c)
        ci = d.order.index(d.challenger)
        behind = [c for c in d.order[ci + 1 :] if c not in participants]
        refusers = [c for c in d.order[:ci] if c not in participants]
        if d.challenger not in participants:
            refusers = [*refusers, d.challenger]
            refusers.sort(key=d.order.index)
        ranked = sorted(participants, key=lambda c: (-totals[c], d.order.index(c)))
        new_order = ranked + refusers + behind
        slots = sorted(lst.index(c) for c in d.order)
        for slot, cid in zip(slots, new_order, strict=True):
            lst[slot] = cid
        text = ", ".join(f"{s.cars[c].name} {totals[c]}" for c in ranked)
        ctx.ev("duel_result", f"Duel at {sec.corner.name}: {text}.", totals=totals, order=new_order)
        for cid in ranked:
            car = s.cars[cid]
            if car.strategy == "banging_wheels" and new_order.index(cid) < d.order.index(cid):
                give_track_cards(ctx, car, 1, " (Banging Wheels special)")
        s.duel = None

    # results and views --------------------------------------------------------------------

    def race_classification(self, state: RF90State) -> list[Car]:
        ctx = Ctx(state)
        running = [state.cars[c] for c in race_order(ctx)]
        out = sorted(
            (c for c in state.cars if not c.running),
            key=lambda c: (-(c.out_turn or 0), c.id),
        )
        return running + out

    def classification(self, state: RF90State) -> list[Placing]:
        out = []
        for place, car in enumerate(self.race_classification(state), start=1):
            if car.seat is not None:
                status = "finished" if car.running else car.status
                out.append(Placing(seat=car.seat, place=place, status=status))
        return out

    def public_view(self, state: RF90State) -> dict[str, Any]:
        data = state.model_dump(mode="json", exclude={"rng"})
        hide_quals = state.phase in ("setup", "qualifying")
        # set-ups are secret until every seat has chosen (Paddock rule, docs/rules/rf90.md)
        hide_setups = state.phase == "setup" and any(
            not c.setup_chosen for c in state.cars if c.seat is not None
        )
        for car in data["cars"]:
            car["hand"] = len(car["hand"])
            if hide_quals:
                car["qual_card"] = None
                car["qual_fuel"] = None
            if hide_setups:
                car["skill"] = None
                car["setup"] = None
        data["race_draw"] = len(state.race_draw)
        data["track_draw"] = len(state.track_draw)
        # counts only: a substitute car's discarded hand is not shown (HTP, Substitute Car)
        data["race_discard"] = len(state.race_discard)
        data["track_discard"] = len(state.track_discard)
        if state.phase == "setup":
            # nor, by the piles' sizes, that anyone took one before all have decided: the
            # sizes as they were before the substitute cars (a swap draws what it discards)
            data["race_draw"] += data["race_discard"]
            data["race_discard"] = 0
        if data["pending"] is not None:
            data["pending"]["drawn"] = len(data["pending"]["drawn"])
        if data["duel"] is not None:
            data["duel"]["cards"] = {k: len(v) for k, v in data["duel"]["cards"].items()}
        data["leader"] = leader(Ctx(state)) if state.phase in ("race", "finished") else None
        return data

    def seat_view(self, state: RF90State, seat: int) -> dict[str, Any]:
        data = self.public_view(state)
        car = self.seat_car(state, seat)
        mine = data["cars"][car.id]
        mine["hand"] = list(car.hand)
        mine["qual_card"] = car.qual_card
        mine["qual_fuel"] = car.qual_fuel
        mine["skill"] = car.skill
        mine["setup"] = car.setup.model_dump(mode="json")
        if state.pending is not None and state.pending.car == car.id:
            data["pending"]["drawn"] = list(state.pending.drawn)
        if state.duel is not None and car.id in state.duel.cards:
            data["duel"]["cards"][str(car.id)] = list(state.duel.cards[car.id])
        return data

    # robots for player seats ---------------------------------------------------------------

    def legal_actions(self, state: RF90State, seat: int) -> list[Action]:
        from rules.rf90.legality import legal_actions

        return legal_actions(self, state, seat)

    def robot_action(self, state: RF90State, seat: int) -> Action:
        from rules.rf90.robot import robot_action

        return robot_action(self, state, seat)

    def simulation_config(
        self, players: int | None = None, track: str | None = None, **_: Any
    ) -> dict[str, Any]:
        n = 4 if players is None else players
        if not 0 <= n <= 6:
            raise ValueError("RF90 simulations take 0 to 6 players")
        return {"track": track or "barcelona", "players": [{} for _ in range(n)]}

    def simulate(self, seed: int, **options: Any) -> dict[str, Any]:
        from rules.rf90.simulate import simulate

        return simulate(self, seed, **options)
