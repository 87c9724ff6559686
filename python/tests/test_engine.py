"""The engine's API from Python: games, actions, views, refusals, records and replays."""

import json
import os

import pytest

import canasta
from canasta import Action, Bot, Game


def play_deal(game: Game, limit: int = 5000) -> int:
    """Plays random legal ids until a deal ends; returns the actions played."""
    start = game.deals_played
    n = 0
    while game.deals_played == start and not game.over:
        assert game.step_random() is not None
        n += 1
        assert n < limit, "a deal that does not end"
    return n


def test_a_game_starts_with_the_seat_to_act_and_its_choices():
    g = Game("official", 4, seed=42)
    assert g.preset == "official" and g.players == 4 and g.sides == 2
    assert g.phase == "draw" and g.to_act in range(4)
    legal = g.legal_actions()
    assert Action("draw") in legal
    assert all(isinstance(a, Action) for a in legal)
    assert g.scores == [0, 0] and g.history == [] and g.winner is None


def test_actions_read_and_print_the_notation():
    a = Action("take KS KH; AS AH Jk")
    assert str(a) == "take KH KS; AH AS Jk"
    assert repr(a) == "Action('take KH KS; AH AS Jk')"
    assert a.kind == "take" and sorted(a.cards) == sorted(["KH", "KS", "AH", "AS", "Jk"])
    assert a.melds == [(None, ["KH", "KS"]), (None, ["AH", "AS", "Jk"])]
    assert Action("meld 0: KS").melds == [(0, ["KS"])]
    assert Action("discard K♠") == Action("x ks") == Action.discard("KS")
    assert hash(Action("draw")) == hash(Action.draw())
    assert Action("out 0: KS / 9C").discarded == "9C"
    assert Action("yes").yes is True and Action("no").yes is False
    assert "discard" in Action("discard 9C").describe()
    with pytest.raises(canasta.NotationError, match="not an action"):
        Action("fly away")
    with pytest.raises(canasta.NotationError, match="card"):
        Action("discard ZZ")


def test_refusals_carry_the_engines_code_and_change_nothing():
    g = Game("official", 4, seed=1)
    before = g.state_hash()
    with pytest.raises(canasta.IllegalAction) as e:
        g.apply("discard 9C")
    assert e.value.code == "WRONG_PHASE" and "drawing" in e.value.message
    other = (g.to_act + 1) % 4
    with pytest.raises(canasta.IllegalAction) as e:
        g.apply("draw", seat=other)
    assert e.value.code == "NOT_YOUR_TURN"
    with pytest.raises(canasta.IllegalAction) as e:
        g.check("draw", seat=9)
    assert e.value.code == "NO_SUCH_SEAT"
    with pytest.raises(canasta.IllegalAction) as e:
        g.hand(4)
    assert e.value.code == "NO_SUCH_SEAT"
    with pytest.raises(ValueError, match="not a seat number"):
        g.apply("draw", seat=-1)
    assert g.state_hash() == before and g.actions == []
    g.check("draw")


@pytest.mark.parametrize(
    "kwargs, code",
    [
        (dict(preset="bogus"), "UNKNOWN_PRESET"),
        (dict(players=7), "BAD_PLAYER_COUNT"),
        (dict(options={"no_such_option": 1}), "UNKNOWN_OPTION"),
        (dict(start_scores=[1]), "BAD_START_SCORES"),
        (dict(card_orders=["KS KH"]), "BAD_CARD_ORDER"),
        (dict(first_dealer=5), "BAD_FIRST_DEALER"),
    ],
)
def test_setups_are_refused_with_the_engines_code(kwargs, code):
    with pytest.raises(canasta.SetupRefused) as e:
        Game(**kwargs)
    assert e.value.code == code


def test_views_show_a_seat_its_own_hand_only():
    g = Game("official", 4, seed=5)
    seat = g.to_act
    v = g.view(seat)
    assert v.seat == seat and v.viewer == "seat"
    assert sorted(v.hand) == sorted(g.hand(seat))
    for s in v.seats:
        assert (s.hand is not None) == (s.seat == seat)
        assert s.hand_len == len(g.hand(s.seat))
    spectator = g.view()
    assert spectator.viewer == "spectator" and all(s.hand is None for s in spectator.seats)
    referee = g.view(referee=True)
    assert referee.stock is not None and len(referee.stock) == referee.stock_len
    assert v.stock is None and v.pile == referee.pile
    assert g.view(seat) == v and g.view((seat + 1) % 4) != v
    assert "View(seat" in repr(v)
    with pytest.raises(canasta.IllegalAction) as e:
        g.view(4)
    assert e.value.code == "NO_SUCH_SEAT"


def test_a_deal_scores_item_by_item():
    g = Game("official", 4, seed=11)
    play_deal(g)
    [deal] = g.history
    assert deal.end in ("went_out", "stock_exhausted", "last_red_three")
    for side in deal.sides:
        assert side.total == side.sum_of_items()
    assert g.scores == [s.cumulative for s in deal.sides] == deal.totals
    assert g.view(0).last_deal == deal


def test_bots_play_whole_matches():
    g = Game("official", 2, seed=3)
    bots = [Bot("greedy"), Bot("random", seed=9)]
    n = 0
    while not g.over and n < 20000:
        bots[g.to_act].play(g)
        n += 1
    assert g.over and g.winner in (0, 1)
    assert max(g.scores) >= 5000
    with pytest.raises(ValueError, match="built-in bots"):
        Bot("nobody")


def test_the_search_bot_plays_by_its_name_and_budget():
    g = Game("official", 4, seed=5)
    bots = [Bot("search:6", seed=1), Bot("greedy"), Bot("search:6:t2", seed=2), Bot("greedy")]
    assert [b.name for b in bots[::2]] == ["search:6", "search:6:t2"]
    # Each plays a legal action (an illegal one raises), through draws, melds and discards.
    discards = 0
    for _ in range(120):
        assert bots[g.to_act].play(g) is not None
        discards += sum(len(s.discarded) for s in g.view(0).seats)
    assert discards > 0
    # What the search reads of the others is public: the same in every seat's view.
    seen = [[(s.known, s.passed, s.discarded) for s in g.view(v).seats] for v in range(4)]
    assert all(x == seen[0] for x in seen)
    assert Bot("search:50ms:noinfer").name == "search:50ms:noinfer"
    with pytest.raises(ValueError, match="is not a budget"):
        Bot("search:0")
    with pytest.raises(ValueError, match="is not a number of threads"):
        Bot("search:t0")


def test_a_record_replays_to_the_same_state():
    g = Game("samba", 3, seed=8, options={"canastas_to_go_out": 3, "target_score": 3000})
    for _ in range(300):
        g.step_random()
    record = g.record()
    assert record["format"] == canasta.RECORD_FORMAT
    again = Game.replay(json.dumps(record))
    assert again.state_hash() == g.state_hash()
    assert again.actions == g.actions and again.record() == record
    bad = dict(record, actions=record["actions"][:3] + [[0, "discard 9C"]] * 2)
    with pytest.raises(canasta.ReplayRefused) as e:
        Game.replay(bad)
    assert e.value.index is not None and e.value.code in ("NOT_YOUR_TURN", "WRONG_PHASE", "CARD_NOT_HELD")
    with pytest.raises(ValueError, match="no players"):
        Game.replay(dict(record, rules={"preset": "official"}))
    with pytest.raises(ValueError, match="format"):
        Game.replay(dict(record, format="canasta-record/0"))
    with pytest.raises(canasta.ReplayRefused) as e:
        Game.replay(dict(record, rules={"preset": "official", "players": 9}))
    assert e.value.code == "BAD_PLAYER_COUNT" and e.value.index is None


def test_card_orders_deal_what_they_say():
    kinds = canasta.card_kinds()
    assert len(kinds) == canasta.CARD_KINDS and kinds[-1] == "Jk"
    pack = Game("official", 2, seed=0).view(referee=True)
    cards = [c for s in pack.seats for c in s.hand + s.red_threes] + pack.pile + pack.stock
    # Any order of the whole pack, top first.
    deck = sorted(cards)
    g = Game("official", 2, card_orders=[" ".join(deck)], first_dealer=0)
    assert g.view(referee=True).pile[-1] in deck
    assert Game("official", 2, card_orders=[" ".join(deck)], first_dealer=0).state_hash() == g.state_hash()


def test_replays_match_the_rust_engine():
    """Records made by the Rust engine (tests/tests/python_package.rs) replay here to the
    state hash the Rust engine computed."""
    path = os.environ.get("CANASTA_RUST_REPLAYS")
    if not path:
        pytest.skip("run by tests/tests/python_package.rs, which writes CANASTA_RUST_REPLAYS")
    with open(path) as f:
        cases = json.load(f)
    assert len(cases) >= 4
    for case in cases:
        g = Game.replay(case["record"])
        assert g.state_hash() == case["state_hash"], case["record"]["rules"]
        assert g.scores == case["scores"]
