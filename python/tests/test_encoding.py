"""The fixed encodings: every legal action has an id that maps back to it (or is counted as
past the option slots), the mask is the legal ids, and an observation holds only what its
seat may see."""

import numpy as np
import pytest

import canasta
from canasta import ACTION_COUNT, OPTION_BASE, OPTION_SLOTS, Action, Game, observation_fields

from conftest import LAYOUTS


def test_the_fixed_ids_are_as_documented():
    assert canasta.DRAW == 0 and canasta.DECLINE == 1 and canasta.ASK == 2
    assert canasta.YES == 3 and canasta.NO == 4 and canasta.DISCARD_BASE == 5
    assert canasta.ADD_BASE == 5 + 53
    assert OPTION_BASE == canasta.ADD_BASE + 53 * canasta.MAX_MELDS
    assert ACTION_COUNT == OPTION_BASE + OPTION_SLOTS
    kinds = canasta.card_kinds()
    assert Action("draw").fixed_id == 0 and Action("decline").fixed_id == 1
    assert Action("ask").fixed_id == 2 and Action("yes").fixed_id == 3 and Action("no").fixed_id == 4
    assert Action("discard 9C").fixed_id == canasta.DISCARD_BASE + kinds.index("9C")
    assert Action("meld 3: KS").fixed_id == canasta.ADD_BASE + 3 * 53 + kinds.index("KS")
    # Shapes of no fixed id: they go to option slots.
    for text in ["take KS KH", "meld KS KH KD", "meld 0: KS KH", "meld 0: KS; 1: QS", "out / 9C"]:
        assert Action(text).fixed_id is None, text
    assert Action(f"meld {canasta.MAX_MELDS}: KS").fixed_id is None


def check_position(g: Game, mask: np.ndarray):
    legal = g.legal_actions()
    ids = g.legal_ids()
    g.action_mask(mask)
    assert sorted(ids.tolist()) == np.flatnonzero(mask).tolist()
    assert len(set(ids.tolist())) == len(ids), "two legal actions share an id"
    without = 0
    for a in legal:
        i = g.id_of(a)
        if i is None:
            without += 1
            continue
        assert g.action_of(i) == a, (a, i)
        assert mask[i] == 1
        if a.fixed_id is not None:
            assert i == a.fixed_id
        else:
            assert OPTION_BASE <= i < ACTION_COUNT
    assert without == g.unreachable
    assert len(ids) + without == len(legal)
    return without


@pytest.mark.parametrize("preset, players", LAYOUTS, ids=[f"{p}-{n}" for p, n in LAYOUTS])
def test_every_legal_action_maps_to_an_id_and_back(preset, players):
    mask = np.zeros(ACTION_COUNT, dtype=np.int8)
    positions = unreachable = 0
    for seed in range(6):
        g = Game(preset, players, seed=seed)
        g.seed_random(seed)
        while g.deals_played < 1:
            unreachable += check_position(g, mask)
            positions += 1
            g.step_random()
    assert positions > 300
    # Options past the last slot are rare: measured in docs/python.md.
    assert unreachable <= positions // 20


def test_ids_out_of_the_position_are_refused():
    g = Game("official", 4, seed=2)
    before = g.state_hash()
    with pytest.raises(ValueError, match="out of the action space"):
        g.step(ACTION_COUNT)
    with pytest.raises(ValueError, match="out of the action space"):
        g.step(-1)
    with pytest.raises(ValueError, match="empty option slot"):
        g.step(ACTION_COUNT - 1)
    with pytest.raises(canasta.IllegalAction) as e:
        g.step(canasta.DISCARD_BASE)
    assert e.value.code == "WRONG_PHASE"
    assert g.state_hash() == before
    with pytest.raises(ValueError, match="ACTION_COUNT"):
        g.action_mask(np.zeros(3, dtype=np.int8))
    with pytest.raises(TypeError, match="int8"):
        g.action_mask(np.zeros(ACTION_COUNT, dtype=np.float32))
    with pytest.raises(TypeError, match="float32"):
        g.observe(0, np.zeros(g.observation_size))
    with pytest.raises(TypeError, match="contiguous"):
        g.action_mask(np.zeros(2 * ACTION_COUNT, dtype=np.int8)[::2])
    out = np.zeros(g.observation_size, dtype=np.float32)
    assert g.observe(0, out) is out


def visible_counts(fields) -> np.ndarray:
    """Every card an observation shows, by kind: own hand, melds, pile; and the option rows."""
    return fields["hand"] + fields["pile"] + fields["melds"].sum(axis=(0, 1))


def referee_counts(g: Game, seat: int) -> np.ndarray:
    kinds = canasta.card_kinds()
    v = g.view(referee=True)
    counts = np.zeros(53)
    cards = list(v.seats[seat].hand) + list(v.pile)
    cards += [c for side in v.sides for m in side.melds for c in m.cards]
    for c in cards:
        counts[kinds.index(c)] += 1
    return counts


@pytest.mark.parametrize("preset, players", LAYOUTS, ids=[f"{p}-{n}" for p, n in LAYOUTS])
def test_observations_hold_no_hidden_card(preset, players):
    """Against the referee's full state: the cards an observation shows are exactly the seat's
    hand and the public cards, and its options use the seat's own cards only."""
    for seed in range(3):
        g = Game(preset, players, seed=seed)
        g.seed_random(seed + 100)
        steps = 0
        while g.deals_played < 1:
            for seat in range(players):
                obs = g.observe(seat)
                f = observation_fields(g, obs)
                np.testing.assert_array_equal(visible_counts(f), referee_counts(g, seat))
                hand = f["hand"]
                if g.to_act != seat:
                    assert not f["options"].any() and not f["option_info"].any()
                for row in f["options"]:
                    assert (row <= hand).all(), "an option uses a card the seat does not hold"
                sizes = f["seats"][:, 0]
                v = g.view(referee=True)
                kinds = canasta.card_kinds()
                for rel in range(players):
                    other = v.seats[(seat + rel) % players]
                    assert sizes[rel] == other.hand_len
                    # What is known of a hand is public, and within that hand.
                    known = np.zeros(53)
                    for c in other.known:
                        known[kinds.index(c)] += 1
                    np.testing.assert_array_equal(f["known"][rel], known)
                    held = np.zeros(53)
                    for c in other.hand:
                        held[kinds.index(c)] += 1
                    assert (known <= held).all()
            g.step_random()
            steps += 1


def test_an_observation_is_the_same_whatever_the_other_hands():
    """Two deals that differ only in the other seats' hands look the same to the seat to act:
    nothing of the other hands reaches its observation."""
    referee = Game("official", 4, seed=4).view(referee=True)
    pack = [c for s in referee.seats for c in s.hand + s.red_threes] + referee.pile + referee.stock
    assert len(pack) == 108
    rng = np.random.default_rng(7)
    quiet = lambda c: c[:-1] not in ("2", "3") and c != "Jk"  # noqa: E731
    while True:
        deck = list(rng.permutation(pack))
        # No red three dealt, and a plain card turned to start the pile (R-DEAL-5, R-RED-1).
        if all(c not in ("3H", "3D") for c in deck[:44]) and quiet(deck[44]):
            break
    dealer = 3
    seats = [0, 1, 2, 3]  # dealt one card at a time from the dealer's left
    swapped = list(deck)
    for i in range(11):
        swapped[4 * i + 1], swapped[4 * i + 2] = deck[4 * i + 2], deck[4 * i + 1]
    a = Game("official", 4, card_orders=[" ".join(deck)], first_dealer=dealer)
    b = Game("official", 4, card_orders=[" ".join(swapped)], first_dealer=dealer)
    assert a.to_act == b.to_act == seats[0]
    assert a.state_hash() != b.state_hash()
    assert sorted(a.hand(1)) == sorted(b.hand(2))
    for seat in (0, 3):
        np.testing.assert_array_equal(a.observe(seat), b.observe(seat))
    assert not np.array_equal(a.observe(1), b.observe(1))
    a.apply("draw")
    b.apply("draw")
    np.testing.assert_array_equal(a.observe(0), b.observe(0))


def test_the_layout_lists_its_fields_in_the_order_of_their_offsets():
    g = Game("official", 4)
    layout = g.observation_layout()
    offsets = [offset for offset, _ in layout.values()]
    assert offsets == sorted(offsets) and offsets[0] == 0
    names = list(layout)
    assert names.index("known") + 1 == names.index("passed")
    assert names.index("passed") + 1 == names.index("discarded")
    last_offset, last_shape = layout[names[-1]]
    assert last_offset + int(np.prod(last_shape)) == g.observation_size == 11_995
    for name in ("known", "passed", "discarded"):
        assert layout[name][1] == [4, 53], name


def test_observations_show_what_each_seat_passed_and_discarded():
    """Per seat from the observer, the pile's top card it passed at its last draw and the cards
    it discarded this deal: the engine's view's `passed` and `discarded`, in every seat's
    observation; the discards are also counted here from the actions played, and each pass is
    the top card the seat saw before drawing from the stock."""
    kinds = canasta.card_kinds()

    def counts(cards, cap=None) -> np.ndarray:
        out = np.zeros(53, dtype=np.float32)
        for c in cards:
            out[kinds.index(c)] += 1
        return out if cap is None else np.minimum(out, cap)

    # A card can go round the pile more than once: the record counts each kind up to the
    # copies the pack holds (two decks and four jokers, R-CARD-1).
    copies = np.full(53, 2.0, dtype=np.float32)
    copies[kinds.index("Jk")] = 4.0

    players = 4
    g = Game("official", players, seed=5)
    bots = [canasta.Bot("greedy") for _ in range(players)]
    discards = [[] for _ in range(players)]
    passes = 0
    while g.deals_played < 1:
        seat = g.to_act
        top = g.view(seat).pile_top
        action = bots[seat].play(g)
        if action.discarded is not None:
            discards[seat].append(action.discarded)
        if g.deals_played >= 1:
            break
        mine = g.view(seat).seats[seat]
        if action.kind == "draw" and mine.passed:
            # The top card it drew past, counted once.
            assert mine.passed == [top]
            passes += 1
        for observer in range(players):
            f = observation_fields(g, g.observe(observer))
            view = g.view(observer)
            for rel in range(players):
                other = (observer + rel) % players
                sv = view.seats[other]
                np.testing.assert_array_equal(f["passed"][rel], counts(sv.passed))
                np.testing.assert_array_equal(f["discarded"][rel], counts(sv.discarded))
                np.testing.assert_array_equal(f["discarded"][rel], counts(discards[other], copies))
                if other == seat and action.kind == "draw" and sv.passed:
                    assert f["passed"][rel][kinds.index(top)] == 1
                    assert f["passed"][rel].sum() == 1
    assert passes > 0, "the deal has a pass to check"
    assert all(discards), "every seat discarded"
