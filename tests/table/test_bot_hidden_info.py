"""Nothing public depends on hidden information (docs/architecture.md, "Rules each layer
keeps"; issue 11): not the text, the images, the button labels, the number of buttons, nor a
custom_id - nor whether the table asks a driver at all.

The audit, for every game: states of races played by the seat policies, and for each a *twin*
that differs only in what the rules hide (hands, face-down cards, the order of the draw piles,
qualifying picks, duel cards put down); everything the table would make public from the state
must be the same for both: who it waits for, the move key (a new board or an edited prompt),
whether a forced choice plays itself, the prompt's text, buttons (label, style, custom_id),
images (their names, and their pixels for a sample) and pings, the board, the summary, the
finish. Twins whose hands differ are also played on with the same public choices (Waddington's
from every move's start, RF90's from a sample), comparing the event lines and the public face at
every step: the steps of a turn must not depend on a hand either. And a /f1 race is played twice
through the fake Discord with only the hands changed, comparing every public message.

And in every simultaneous pick (RF90's set-up, substitute car, qualifying and duel cards), two
races that differ only in one driver's pick show the thread the same until the last pick.

Findings outside the files of this change are tests marked `xfail(strict=True)`.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from bot.cogs.pitformula import PitPresenter, table_image
from bot.cogs.pitformula.text import race_text
from bot.cogs.rf90 import GRID, RF90Presenter
from bot.cogs.waddington import WaddingtonPresenter
from bot.components import shown
from bot.presenter import Frame, Image, Loaded, Presenter
from bot.table.moves import forced as forced_action
from paddock_tools.bots import make_bot, world
from paddock_tools.f1_driver import buttons, latest_with, seat_user, start_race, state_of
from paddock_tools.fakediscord import ALICE, GENERAL_CHANNEL_ID, RACES_CHANNEL_ID, InProcessDriver
from paddock_tools.fakediscord.backend import _walk_components
from paddock_tools.rf90_driver import PRESENTER as RF90_PRESENTER
from paddock_tools.rf90_driver import decide, loaded
from rules.base import Action, GameState, get_game
from rules.pitformula.coords import SLOT_PART
from rules.rf90 import ChooseSetup, DuelCards, Mulligan, Qualify
from rules.rf90 import catalog as rf90_catalog
from rules.rf90.state import FUEL_TURNS, ROBOT_SEAT, PlayCards
from rules.waddington import PlayTactic, Proceed, WaddingtonState, catalog
from store.models import GameRecord, Seat
from tests.pitformula.pf_helpers import robot_move
from tests.rf90.rf90_helpers import (
    assert_every_line_once,
    logged_events,
    logged_lines,
    public_calls,
    race_at,
    thread_messages,
)

DEADLINE = 1_900_000_000.0
GID = 7
USERS = [1100000000000000501 + i for i in range(8)]


# --- the public face of a state -------------------------------------------------------------


def loaded_for(
    kind: str,
    state: GameState,
    config: dict[str, Any],
    seq: int,
    settings: dict[str, Any] | None = None,
    seats: int = 6,
) -> Loaded:
    record = GameRecord(
        id=GID,
        kind=kind,
        guild_id=1,
        channel_id=2,
        thread_id=3,
        status_message_id=None,
        league_id=None,
        round_id=None,
        seed=1,
        config=config,
        settings=settings or {},
        status="running",
        results_recorded=False,
        seq=seq,
        state_json=None,
    )
    people = {
        i: Seat(seat=i, user_id=USERS[i], name=f"driver{i}", robot=False) for i in range(seats)
    }
    return Loaded(record, get_game(kind), state, people)


def item_face(item: Any) -> tuple[Any, ...]:
    inner = getattr(item, "item", item)
    return (
        type(item).__name__,
        getattr(inner, "label", None),
        str(getattr(inner, "style", None)),
        getattr(inner, "disabled", None),
        str(getattr(inner, "emoji", None)),
        getattr(item, "custom_id", None) or getattr(inner, "custom_id", None),
    )


def images_face(images: Image | list[Image] | None, pixels: bool) -> list[Any]:
    if images is None:
        return []
    listed = images if isinstance(images, list) else [images]
    return [(i.filename, i.draw() if pixels else None) for i in listed]


def forced(presenter: Presenter, loaded: Loaded, waiting: list[int]) -> bool:
    """Whether the table plays a choice by itself here (bot/table/moves.py: `forced`): then
    nobody is pinged and no prompt is posted."""
    return forced_action(presenter, loaded, waiting) is not None


def public_face(
    presenter: Presenter,
    loaded: Loaded,
    *,
    pixels: bool = False,
    extra: Callable[[Loaded, bool], dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Everything the table would publish from this state."""
    state, game = loaded.state, loaded.game
    face: dict[str, Any] = {
        "summary": presenter.summary(loaded),
        "move_key": repr(presenter.move_key(state)),
        "terminal": game.is_terminal(state),
        "timers": [t.model_dump() for t in presenter.race_timers(state, 1000.0)],
    }
    if extra is not None:
        face.update(extra(loaded, pixels))
    if game.is_terminal(state):
        lines, image = presenter.finish(loaded)
        face["finish"] = (lines, images_face(image, pixels))
        return face
    waiting = presenter.waiting_seats(state)
    face["waiting"] = waiting
    face["forced"] = forced(presenter, loaded, waiting)
    if waiting:
        prompt = presenter.prompt(loaded, waiting, DEADLINE)
        face["content"] = prompt.content
        face["items"] = [item_face(i) for i in prompt.items]
        face["prompt_images"] = images_face(prompt.images, pixels)
        face["pings"] = prompt.pings
    face["board"] = images_face(presenter.board(loaded, presenter.acting_seat(state)), pixels)
    return face


def differences(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    return {k: (a.get(k), b.get(k)) for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)}


def permute_hidden(ids: list[Any], rng: random.Random) -> dict[Any, Any]:
    """A bijection of these hidden card ids onto themselves."""
    shuffled = list(ids)
    rng.shuffle(shuffled)
    return dict(zip(ids, shuffled, strict=True))


# --- Waddington's Formula 1 -----------------------------------------------------------------

WADDINGTON = WaddingtonPresenter()
CARDS = catalog().cards


def waddington_race(
    seed: int, cars: int, *, soft: bool = False, public: bool = True
) -> tuple[WaddingtonState, dict[str, Any]]:
    """A new race as the bot starts one (its rules config), every seat a person."""
    lobby: Any = SimpleNamespace(settings={"laps": 1, "soft_options": soft})
    seats: Any = [SimpleNamespace(name=f"driver{i}", robot=False) for i in range(cars)]
    config = WADDINGTON.rules_config(lobby, seats)
    config["public_card_window"] = public
    game = get_game("waddington")
    return game.new_game(seed, config), config


def w_loaded(state: WaddingtonState, config: dict[str, Any], seq: int) -> Loaded:
    return loaded_for("waddington", state, config, seq, {"title": "Test race"}, len(state.cars))


def w_twin(state: WaddingtonState, rng: random.Random, hand: str = "any") -> WaddingtonState | None:
    """The same race with other hidden cards: the Tactic cards in the hands and out of play
    (the used pile is public) are dealt again, every hand keeping its size. `hand` steers the
    mover's: "dry" only cards it can never play after a move, "wet" only extra moves. The Pit
    card pack is left alone: its order decides what is drawn, like the dice."""
    twin = state.model_copy(deep=True)
    assert twin.turn is not None
    mover = twin.cars[twin.turn.seat]
    piles = [car.hand for car in twin.cars] + [twin.tactic_undealt]
    hidden = [cid for pile in piles for cid in pile]
    mapping = permute_hidden(hidden, rng)
    for pile in piles:
        pile[:] = [mapping[c] for c in pile]
    if hand != "any" and mover.hand:
        want = (
            (lambda c: CARDS[c].timing == "before_move")
            if hand == "dry"
            else (lambda c: CARDS[c].type == "extra_move")
        )
        pool = [c for c in hidden if want(c)]
        if len(pool) < len(mover.hand):
            return None
        chosen = rng.sample(pool, len(mover.hand))
        for new in chosen:
            if new in mover.hand:
                continue
            old = next(c for c in mover.hand if c not in chosen)
            for pile in piles:  # swap the two cards wherever they lie
                pile[:] = [old if c == new else new if c == old else c for c in pile]
    return twin


def public_choice(game: Any, state: WaddingtonState) -> Action:
    """What a driver picks from the public buttons: the seat policy's choice for the car as
    everyone sees it (no card in any hand), so the same for both twins; in a card window,
    carry on (a card played is public: the twins would part there)."""
    assert state.turn is not None
    seat = state.turn.seat
    blank = state.model_copy(
        update={"cars": [c.model_copy(update={"hand": []}) for c in state.cars]}
    )
    wanted = game.robot_action(blank, seat)
    assert not isinstance(wanted, PlayTactic)
    return Proceed(seat=seat) if state.turn.phase == "after_move" else wanted


def waddington_audit(
    seed: int,
    cars: int,
    *,
    soft: bool = False,
    public: bool = True,
    walk: int = 7,
    pixels_every: int = 0,
    stop: bool = True,
) -> tuple[list[str], int]:
    """Play a race with the seat policy; from each move's start, twins with other hands walk
    on beside it on the public choices. Returns the differences found (empty: nothing leaks;
    `stop`: the first only) and how many twin walks were compared."""
    game = get_game("waddington")
    state, config = waddington_race(seed, cars, soft=soft, public=public)
    rng = random.Random(seed)
    found: list[str] = []
    seq = moves = walks = 0
    while not game.is_terminal(state) and seq < 3000:
        assert state.turn is not None
        if state.turn.phase == "speed":
            moves += 1
            pixels = bool(pixels_every) and moves % pixels_every == 1
            for kind in ("any", "dry", "wet"):
                twin = w_twin(state, rng, kind)
                if twin is None:
                    continue
                walks += 1
                where = f"{seed}/{seq}/{kind}"
                found += w_walk(game, state, twin, config, seq, walk, pixels, where)
                if found and stop:
                    return found, walks
        state, _ = game.apply(state, game.robot_action(state, state.turn.seat))
        seq += 1
    return found, walks


def w_walk(
    game: Any,
    a: WaddingtonState,
    b: WaddingtonState,
    config: dict[str, Any],
    seq: int,
    steps: int,
    pixels: bool,
    where: str,
) -> list[str]:
    for step in range(steps + 1):
        fa = public_face(WADDINGTON, w_loaded(a, config, seq + step), pixels=pixels and step < 3)
        fb = public_face(WADDINGTON, w_loaded(b, config, seq + step), pixels=pixels and step < 3)
        if fa != fb:
            return [f"{where} step {step}: {differences(fa, fb)}"]
        if game.is_terminal(a) or step == steps:
            return []
        action = public_choice(game, a)
        if action not in game.legal_actions(b, action.seat):
            return [f"{where} step {step}: {action} is offered to one twin only"]
        a, ea = game.apply(a, action)
        b, eb = game.apply(b, action)
        if WADDINGTON.event_lines(ea) != WADDINGTON.event_lines(eb):
            return [f"{where} step {step}: {WADDINGTON.event_lines(ea)} / {eb}"]
    return []


@pytest.mark.parametrize(("seed", "cars", "soft"), [(3, 3, False), (11, 6, False), (5, 2, True)])
def test_waddington_nothing_public_depends_on_a_hand(seed: int, cars: int, soft: bool) -> None:
    found, walks = waddington_audit(seed, cars, soft=soft, pixels_every=6 if seed == 3 else 0)
    assert found == []
    assert walks > 40


def test_the_audit_sees_the_old_card_window() -> None:
    """Without `public_card_window` (races started before it), the card window opened only
    for a playable card and 'carry on' came after the cards: the audit finds it."""
    found, _ = waddington_audit(3, 3, public=False, stop=False)
    # the index of 'End move' counted the playable cards...
    assert any("'End move'" in f and "'items'" in f for f in found), found
    # ...and the window itself showed only for a playable card
    assert any("'content'" in f and "play a Tactic card" in f for f in found), found


def test_waddington_public_buttons_never_offer_a_card() -> None:
    """Every public `act` button is an action that is not a Tactic card, at an index that
    comes before any card in the engine's list (so it does not count them)."""
    game = get_game("waddington")
    for seed in (1, 2):
        state, config = waddington_race(seed, 4)
        seq = 0
        while not game.is_terminal(state):
            (seat,) = game.to_act(state)
            legal = game.legal_actions(state, seat)
            cards = [i for i, a in enumerate(legal) if isinstance(a, PlayTactic)]
            prompt = WADDINGTON.prompt(w_loaded(state, config, seq), [seat], None)
            for item in prompt.items:
                if ":act:" in item.custom_id:
                    index = int(item.custom_id.rsplit(".", 1)[1])
                    assert not isinstance(legal[index], PlayTactic)
                    assert not cards or index < cards[0]
            state, _ = game.apply(state, public_choice(game, state))
            seq += 1


# --- Race! Formula 90 -------------------------------------------------------------------------

RF90 = RF90Presenter()


def rf90_states(seed: int, players: int, track: str) -> Iterator[tuple[Any, int]]:
    game = get_game("rf90")
    state = game.new_game(seed, game.simulation_config(players=players, track=track))
    seq = 0
    while not game.is_terminal(state) and seq < 4000:
        yield state, seq
        seat = game.to_act(state)[0]
        state, _ = game.apply(state, game.robot_action(state, seat))
        seq += 1


def rf90_twin(state: Any, rng: random.Random, only_hands: bool = False) -> Any:
    """The same race with the hidden cards dealt again: hands, the draw piles' order and the
    discards (shown as counts), the cards of a duel put down face down, and the qualifying
    picks before the reveal; `only_hands`: the hands alone (what is drawn stays the same,
    like the dice, and what a reveal will show). A Race card stays a Race card and a Track
    card a Track card; every pile keeps its size; the cards drawn this turn are the same
    cards of the hand as before."""
    twin = state.model_copy(deep=True)
    hide_quals = twin.phase in ("setup", "qualifying") and not only_hands
    piles: list[list[int]] = [car.hand for car in twin.cars]
    if not only_hands:
        piles += [twin.race_draw, twin.race_discard, twin.track_draw, twin.track_discard]
    if twin.duel is not None and not only_hands:
        piles += list(twin.duel.cards.values())
    quals = [car for car in twin.cars if hide_quals and car.qual_card is not None]
    hidden = {c for pile in piles for c in pile} | {car.qual_card for car in quals}
    race = sorted(c for c in hidden if c in rf90_catalog.race_deck())
    other = sorted(hidden - set(race))
    mapping = {**permute_hidden(race, rng), **permute_hidden(other, rng)}
    for pile in piles:
        pile[:] = [mapping[c] for c in pile]
    for car in quals:
        car.qual_card = mapping[car.qual_card]
        if car.qual_fuel is not None:
            car.qual_fuel = rng.choice(FUEL_TURNS)
    if twin.pending is not None:
        twin.pending.drawn = [mapping.get(c, c) for c in twin.pending.drawn]
    choosing = [c for c in twin.cars if c.seat is not None and not c.setup_chosen]
    if twin.phase == "setup" and choosing and not only_hands:
        # set-ups chosen while others still choose are secret too (issue 28)
        for car in twin.cars:
            if car.seat is not None and car.setup_chosen:
                car.skill = rng.choice([None, *rf90_catalog.skill_ids()])
                car.setup = car.setup.model_copy(update={"tyres": rng.choice([1, 3])})
    return twin


def rf90_extra(loaded: Loaded, pixels: bool) -> dict[str, Any]:
    """The pictures of a section activation ending at this state (or of the grid)."""
    state = loaded.state
    if state.phase != "race" or not pixels:
        return {}
    frame = Frame(state.activation if state.activation is not None else GRID, state, [], set())
    return {"frame": images_face(RF90.frame_images(loaded, frame), True)}


def rf90_face(state: Any, seq: int, pixels: bool) -> dict[str, Any]:
    humans = sum(1 for c in state.cars if c.seat is not None)
    loaded = loaded_for("rf90", state, {}, seq, {"pictures": "every"}, humans)
    face = public_face(RF90, loaded, pixels=pixels, extra=rf90_extra)
    face["view"] = loaded.game.public_view(state)  # what the pictures are drawn from
    if state.pending is not None and state.pending.phase == "B" and state.duel is None:
        face.pop("forced", None)  # a known leak: test_rf90_forced_card_play_*
    return face


def rf90_walk(a: Any, b: Any, seq: int, steps: int) -> int:
    """Play on from two twins whose hands differ with the same choices (the seat policy's
    in `a`, while `b` may make it: a card named is public once played, and the twins part
    there); the events told and the public face must stay the same. Returns the steps."""
    game = get_game("rf90")
    for step in range(steps):
        if game.is_terminal(a):
            return step
        seat = game.to_act(a)[0]
        action = game.robot_action(a, seat)
        if action not in game.legal_actions(b, seat):
            return step
        a, ea = game.apply(a, action)
        b, eb = game.apply(b, action)
        assert RF90.event_lines(ea) == RF90.event_lines(eb), (seq, step, action)
        fa, fb = rf90_face(a, seq + step + 1, False), rf90_face(b, seq + step + 1, False)
        assert fa == fb, (seq, step, action, differences(fa, fb))
    return steps


@pytest.mark.parametrize(("seed", "players", "track"), [(1, 2, "barcelona"), (2, 3, "silverstone")])
def test_rf90_nothing_public_depends_on_a_hand(seed: int, players: int, track: str) -> None:
    rng = random.Random(seed)
    checked = pictured = walked = 0
    for state, seq in rf90_states(seed, players, track):
        if ROBOT_SEAT in get_game("rf90").to_act(state):
            continue  # the engine's robot cars: nobody is asked
        checked += 1
        pixels = pictured < 4 and state.phase == "race" and checked % 25 == 0
        pictured += pixels
        a = rf90_face(state, seq, pixels)
        for _ in range(2):
            b = rf90_face(rf90_twin(state, rng), seq, pixels)
            assert a == b, (seq, differences(a, b))
        if checked % 3 == 0:
            walked += rf90_walk(state, rf90_twin(state, rng, only_hands=True), seq, 6)
    assert checked > 100 and walked > 100


def _rf90_one_card_turn(drawn: int) -> Any:
    """A driver with an empty hand starts a turn with the Balance strategy and draws one card
    (the draw pile's top): phase B, a hand of exactly one card (the number is public)."""
    from rules.rf90.scenario import begin, build
    from rules.rf90.state import StartTurn

    car = {"name": "Blue", "seat": 0, "section": 9, "hand": [], "strategy": "balance", "chips": 12}
    state = begin(build("barcelona", [car], deck_top=[drawn]), 0)
    state, _ = get_game("rf90").apply(state, StartTurn(seat=0))
    assert state.pending.phase == "B" and state.cars[0].hand == [drawn]
    return state


def _rf90_cards_by_tyres() -> tuple[int, int]:
    deck = rf90_catalog.race_deck()
    worn = next(c for c, card in sorted(deck.items()) if card.tyres > 0)
    free = next(c for c, card in sorted(deck.items()) if card.tyres == 0)
    return worn, free


def test_rf90_forced_card_play_does_not_depend_on_the_card() -> None:
    worn, free = _rf90_cards_by_tyres()
    game = get_game("rf90")
    faces = []
    for drawn in (worn, free):
        state = _rf90_one_card_turn(drawn)
        assert all(isinstance(a, PlayCards) for a in game.legal_actions(state, 0))
        faces.append(forced(RF90, loaded_for("rf90", state, {}, 1, {}, 1), [0]))
    assert faces[0] == faces[1], f"forced with a tyre card: {faces[0]}, without: {faces[1]}"


# --- Pit Formula -------------------------------------------------------------------------------


PIT = PitPresenter(SimpleNamespace())  # type: ignore[arg-type]


def pit_extra(loaded: Loaded, pixels: bool) -> dict[str, Any]:
    """The race message: its text and the token table image (its buttons are fixed)."""
    names = {seat: s.name for seat, s in loaded.seats.items()}
    state = loaded.state
    text = race_text(state, names) if state.phase == "repair" else None
    return {"race_text": text, "table": images_face(table_image(state), pixels)}


def pit_twin(state: Any, rng: random.Random) -> Any:
    """Face-down part cards dealt again from their packs (a tyre stays a tyre), the packs'
    and the crash cards' order and the trophy stack shuffled."""
    twin = state.model_copy(deep=True)
    for part in [p for p in ("tyre", "wing", "gas", "engine") if p in twin.decks]:
        down = [
            cs
            for car in twin.cars
            for cs in car.cards
            if not cs.revealed and SLOT_PART[cs.slot] == part
        ]
        ids = [cs.card for cs in down] + twin.decks[part]
        mapping = permute_hidden(ids, rng)
        for cs in down:
            cs.card = mapping[cs.card]
        twin.decks[part] = [mapping[c] for c in twin.decks[part]]
    for pile in ("crash", "super"):
        rng.shuffle(twin.decks[pile])
    rng.shuffle(twin.trophy_stack)
    return twin


@pytest.mark.parametrize(("seed", "mode"), [(1, "standard"), (2, "solo"), (3, "constructors")])
def test_pit_formula_nothing_public_depends_on_a_face_down_card(seed: int, mode: str) -> None:
    game = get_game("pitformula")
    config = game.simulation_config(mode=mode)
    state = game.new_game(seed, config)
    rng = random.Random(seed)
    checked = 0
    while not game.is_terminal(state) and checked < 400:
        seq = state.moves
        loaded = loaded_for("pitformula", state, config, seq, {}, state.settings.players)
        pixels = checked % 60 == 5
        a = public_face(PIT, loaded, pixels=pixels, extra=pit_extra)
        for _ in range(2):
            twin = loaded_for(
                "pitformula", pit_twin(state, rng), config, seq, {}, state.settings.players
            )
            b = public_face(PIT, twin, pixels=pixels, extra=pit_extra)
            assert a == b, (seq, differences(a, b))
        checked += 1
        state, _ = game.apply(state, robot_move(state))
    assert checked > 20


# --- /f1 through the fake Discord ---------------------------------------------------------------


def _normalise(text: str, gid: int, thread: int) -> str:
    text = re.sub(rf"pd:f1:{gid}:", "pd:f1:G:", text)
    text = re.sub(rf"race{gid}-", "raceG-", text)
    text = re.sub(r"<t:\d+:", "<t:T:", text)
    return text.replace(str(thread), "THREAD")


def public_transcript(d: InProcessDriver, since: int, gid: int, thread: int) -> list[Any]:
    """Every public message the race's thread got (sent or edited) since `since`: text,
    buttons and files (their names and bytes)."""
    out = []
    for call in d.backend.calls[since:]:
        if not call.is_message or call.ephemeral or call.channel_id != thread:
            continue
        parts = [
            (c.get("label"), c.get("style"), c.get("custom_id"))
            for c in _walk_components(call.components)
        ]
        out.append(
            (
                call.method,
                _normalise(call.content or "", gid, thread),
                _normalise(json.dumps(parts), gid, thread),
                _normalise(json.dumps(call.embeds), gid, thread),
                [(_normalise(f.filename, gid, thread), f.data) for f in call.files],
            )
        )
    return out


async def _set_state(d: InProcessDriver, gid: int, state: WaddingtonState) -> None:
    """Deal the hidden cards of a stored race again (what the twins differ in)."""
    async with d.bot.store.transaction() as db:
        await db.execute(
            "UPDATE game_snapshots SET state_json = ? WHERE game_id = ?", (state.to_json(), gid)
        )
    d.bot.table.core.race(gid).last_board = state  # the last board drew this state


async def test_f1_two_races_with_other_hands_look_the_same(tmp_path: Path) -> None:
    """Two /f1 races in the same position whose hands differ (one driver holds extra moves
    she can play after her move, the other only cards she cannot): the same public clicks
    give the same public messages, byte for byte, card windows included."""
    async with InProcessDriver(make_bot(tmp_path / "twins.db"), world()) as d:
        # (in two channels: the same /f1 new again in one would be a retry, no second race)
        channels = (GENERAL_CHANNEL_ID, RACES_CHANNEL_ID)
        gids = [await start_race(d, laps=1, robots=0, channel_id=c) for c in channels]
        game, base, seq = await state_of(d, gids[0])
        _, _, seq2 = await state_of(d, gids[1])
        assert seq == seq2 == 0
        rng = random.Random(4)
        wet, dry = w_twin(base, rng, "wet"), w_twin(base, rng, "dry")
        mover = base.turn.seat
        assert wet is not None and dry is not None
        assert len(wet.cars[mover].hand) == len(dry.cars[mover].hand) > 0
        threads = []
        for gid, state in zip(gids, (wet, dry), strict=True):
            await _set_state(d, gid, state)
            record = await d.bot.store.load_game(gid)
            threads.append(record.thread_id)
            d.world.channels.setdefault(record.thread_id, d.backend.threads[record.thread_id])
        marks = []
        for thread in threads:
            marks.append(d.backend.mark())
            await d.slash("f1", "status", user=ALICE, channel_id=thread)
        windows = 0
        for _ in range(24):
            now = [await state_of(d, gid) for gid in gids]
            if any(game.is_terminal(state) for game, state, _ in now):
                assert all(game.is_terminal(state) for game, state, _ in now)
                break
            prompts = [
                latest_with(d, f"pd:f1:{gid}:act:{seq}.")
                for gid, (_, _, seq) in zip(gids, now, strict=True)
            ]
            shown = [
                _normalise(json.dumps([p["content"], buttons(p)]), gid, thread)
                for p, gid, thread in zip(prompts, gids, threads, strict=True)
            ]
            assert shown[0] == shown[1]  # the live public prompts
            game, state, seq = now[0]
            windows += state.turn.phase == "after_move"
            action = public_choice(game, state)  # the same public button in both races
            index = game.legal_actions(state, action.seat).index(action)
            for gid, prompt in zip(gids, prompts, strict=True):
                custom_id = f"pd:f1:{gid}:act:{seq}.{index}"
                assert custom_id in [b["custom_id"] for b in buttons(prompt)]
                user = await seat_user(d, gid, action.seat)
                await d.click(custom_id, user=user, message_id=int(prompt["id"]))
        transcripts = [
            public_transcript(d, mark, gid, thread)
            for mark, gid, thread in zip(marks, gids, threads, strict=True)
        ]
        assert transcripts[0] and transcripts[0] == transcripts[1]
        assert windows >= 2  # card windows were among the steps compared


# --- A simultaneous pick shows nothing until the last (issue 28) -------------------------------


PICKED = {  # what a pick of each phase is
    "setup": ChooseSetup,
    "substitute car": Mulligan,
    "qualifying": Qualify,
    "duel cards": DuelCards,
}
# The events that tell what the phase's picks were (the reveal).
REVEALS = {"setup", "mulligan", "qualifying", "duel_result"}


@pytest.mark.parametrize("phase", list(PICKED))
async def test_a_simultaneous_pick_shows_nothing_until_the_last(tmp_path: Path, phase: str) -> None:
    """Two races alike in every public way; the first driver to pick chooses otherwise in
    each. Nothing public differs (text, buttons, custom_ids, pictures) until the last pick,
    and no line tells a pick; then one message tells every pick of the phase."""
    faces, reveals = [], []
    for n, which in enumerate((0, -1)):
        async with InProcessDriver(make_bot(tmp_path / f"{n}.db"), world(), timeout=30) as d:
            store = d.bot.store
            gid = await race_at(d, phase)
            now = await loaded(d, gid)
            thread = now.record.thread_id
            first, last = RF90_PRESENTER.waiting_seats(now.state)[::-1]
            options = now.game.legal_actions(now.state, first)
            assert len(options) > 1 and all(isinstance(a, PICKED[phase]) for a in options)
            seq = now.record.seq
            calls = await decide(d, gid, first, choose=lambda opts, _, w=which: opts[w])
            after = await loaded(d, gid)
            assert after.record.seq > seq and RF90_PRESENTER.waiting_seats(after.state) == [last]
            faces.append(public_calls(calls))
            public = [str(m.get("content")) for m in thread_messages(d.backend, thread)]
            assert not [line for line in await logged_lines(store, gid, seq) if line in public]
            # the last pick: what the phase's picks did, in one message
            revealed = await decide(d, gid, last)
            told = [
                shown(e.text)
                for e in await logged_events(store, gid, seq)
                if e.kind in REVEALS and e.text
            ]
            posts = [c.content or "" for c in revealed if c.kind == "channel_message"]
            holding = [p for p in posts if set(told) <= set(p.splitlines())]
            assert len(holding) == 1 or not told, (told, posts)
            reveals.append(told)
            await assert_every_line_once(d.backend, store, gid)
    assert faces[0] and faces[0] == faces[1], "a pick changed what the thread shows"
    assert any(reveals)
    if phase == "setup":  # the two first picks differ, and the reveal tells each
        assert reveals[0] != reveals[1]
