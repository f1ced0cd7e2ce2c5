"""The after-move Tactic card window on public facts (Paddock rule, `public_card_window`):
the steps of a turn never tell whether the hand holds a playable card (issue 11)."""

from __future__ import annotations

import pytest

from rules.waddington import Move, PlayTactic, Proceed, Retire, SetSpeed, Waddington, catalog
from rules.waddington.scenario import build, card_of_type
from tests.waddington.waddington_helpers import play

GAME = Waddington()
CAT = catalog()
FAR = {"row": 40, "lane": 1}
SUPERB = card_of_type("superb_driving")
ACC = card_of_type("accelerate_120")
EXTRA = card_of_type("extra_move", squares=2)
TYRE = card_of_type("tyre_care")
BRAKE = card_of_type("brake_adjust")


def red(hand: list[str], **car) -> dict:
    """A red car at 80 mph before Copse Corner (middle lane: 60 mph safety, so +20)."""
    return {"colour": "Red", "row": 8, "lane": 1, "speed": 80, "hand": hand, **car}


def after_move(hand: list[str], public: bool = True, **car):
    st = build([red(hand, **car), FAR], throws=[9], public_card_window=public)
    st, ev = play(st, SetSpeed(seat=0, speed=80), Move(seat=0, to=(12, 1)))
    return st, ev


@pytest.mark.parametrize(
    "hand",
    [
        [EXTRA],  # playable now
        [SUPERB, ACC],  # before-move cards only: nothing to play after the move
        [TYRE, BRAKE],  # gauge cards with no wear to take off
    ],
)
def test_the_window_opens_whatever_the_hand_holds(hand):
    st, ev = after_move(hand)
    assert st.turn.phase == "after_move" and st.turn.seat == 0
    assert not [e for e in ev if e.kind == "band"]  # the dice wait for the window
    legal = GAME.legal_actions(st, 0)
    assert legal[0] == Proceed(seat=0)  # its place does not count the cards
    assert legal[-1] == Retire(seat=0)
    playable = [a for a in legal if isinstance(a, PlayTactic)]
    assert bool(playable) == (hand == [EXTRA])


def test_carrying_on_throws_the_same_dice_as_without_the_window():
    public, _ = after_move([SUPERB, ACC])
    public, ev = play(public, Proceed(seat=0))
    legacy, ev_legacy = after_move([SUPERB, ACC], public=False)  # no window: dice at once
    assert [e.text for e in ev] == [e.text for e in ev_legacy if e.kind not in ("speed", "move")]
    assert public.cars == legacy.cars and public.rng == legacy.rng
    assert public.turn.seat == legacy.turn.seat == 1


def test_the_robot_carries_on_when_nothing_is_playable():
    st, _ = after_move([SUPERB])
    assert GAME.robot_action(st, 0) == Proceed(seat=0)


def test_no_window_with_an_empty_hand():
    st, ev = after_move([])
    assert st.turn.seat == 1  # the number of cards is public: nothing to hide
    assert [e.data["throw"] for e in ev if e.kind == "band"] == [9]


def test_no_window_after_a_card_before_the_move():
    st = build([red([SUPERB, EXTRA]), FAR], public_card_window=True)
    st, _ = play(st, PlayTactic(seat=0, card=SUPERB), SetSpeed(seat=0, speed=80))
    st, _ = play(st, Move(seat=0, to=(12, 1)))
    assert st.turn.seat == 1  # one card per turn (§L rule 47): everyone saw it played


def test_no_window_into_the_pits_or_before_a_certain_spin():
    pit = build(
        [{"colour": "Yellow", "row": 61, "lane": 0, "speed": 60, "hand": [EXTRA]}, FAR],
        public_card_window=True,
    )
    pit, ev = play(pit, SetSpeed(seat=0, speed=60), Move(seat=0, to=(64, -1)))
    assert any(e.kind == "pit" for e in ev) and pit.turn.seat == 1  # §L rule 45
    # 140 mph through Copse's middle lane (60): 80 over, the spin is certain (§I rule 30)
    spin = build(
        [{"colour": "Red", "row": 6, "lane": 1, "speed": 140, "hand": [EXTRA]}, FAR],
        public_card_window=True,
    )
    spin, ev = play(spin, SetSpeed(seat=0, speed=140), Move(seat=0, to=(13, 1)))
    assert any(e.kind == "spin" for e in ev) and spin.turn.seat == 1


def test_soft_option_window_after_the_dice_whatever_the_hand():
    st = build(
        [red([SUPERB]), FAR],
        throws=[9],
        soft_tactic_after_dice=True,
        public_card_window=True,
    )
    st, ev = play(st, SetSpeed(seat=0, speed=80), Move(seat=0, to=(12, 1)))
    assert [e.data["throw"] for e in ev if e.kind == "band"] == [9]  # dice first...
    assert st.turn.phase == "after_move"  # ...then the window, though nothing is playable
    assert GAME.legal_actions(st, 0) == [Proceed(seat=0), Retire(seat=0)]
    st, _ = play(st, Proceed(seat=0))
    assert st.turn.seat == 1


def test_races_without_the_setting_keep_their_steps():
    """A race started before the rule replays its log as it was played."""
    st, _ = after_move([SUPERB, ACC], public=False)
    assert st.turn.seat == 1
    st, _ = after_move([EXTRA], public=False)
    legal = GAME.legal_actions(st, 0)
    assert isinstance(legal[0], PlayTactic) and legal[-2:] == [Proceed(seat=0), Retire(seat=0)]
    assert GAME.new_game(1, {"count": 2}).settings.public_card_window is False


@pytest.mark.parametrize("seed", range(3))
def test_the_rule_changes_only_the_steps_of_a_robot_race(seed):
    """Robots carry on where nothing is playable: the same race, a few more actions."""
    ends = []
    for public in (False, True):
        state = GAME.new_game(seed, {"count": 4, "laps": 1, "public_card_window": public})
        actions = 0
        while not GAME.is_terminal(state):
            (seat,) = GAME.to_act(state)
            state, _ = GAME.apply(state, GAME.robot_action(state, seat))
            actions += 1
        ends.append((state, actions))
    (legacy, n_legacy), (public, n_public) = ends
    assert public.cars == legacy.cars and public.rng == legacy.rng
    assert n_public > n_legacy


def test_a_card_throws_the_dice_when_bands_wait_for_them():
    """The bot asks Confirm before a card that throws the dice (issue 27): an after-move card
    with a band to judge does; the same card with no band, a card before the move, and
    carrying on (not a card) do not; whether a die is thrown is told, not what it shows."""
    st, _ = after_move([TYRE, EXTRA], tyre=2)  # Copse Corner at +20 waits for the dice
    cards = [a for a in GAME.legal_actions(st, 0) if isinstance(a, PlayTactic)]
    assert {a.card for a in cards} == {TYRE, EXTRA}
    assert all(GAME.card_throws_dice(st, a) for a in cards)
    assert not GAME.card_throws_dice(st, Proceed(seat=0))
    before = st.model_copy(deep=True)
    GAME.card_throws_dice(st, cards[0])
    assert st == before  # asked on a copy: the race's dice are untouched

    slow = build([{**red([TYRE], tyre=2), "speed": 40}, FAR], public_card_window=True)
    slow, ev = play(slow, SetSpeed(seat=0, speed=40), Move(seat=0, to=(10, 1)))
    assert slow.turn.phase == "after_move" and not slow.turn.pending
    assert not GAME.card_throws_dice(slow, PlayTactic(seat=0, card=TYRE))

    early = build([red([SUPERB, ACC]), FAR], public_card_window=True)
    before_move = [a for a in GAME.legal_actions(early, 0) if isinstance(a, PlayTactic)]
    assert before_move and not any(GAME.card_throws_dice(early, a) for a in before_move)
