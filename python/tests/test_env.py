"""The environments: PettingZoo's own API test for every preset and player count, the
Gymnasium environment against the built-in bots, and random play over thousands of deals."""

import numpy as np
import pytest
from pettingzoo.test import api_test

import canasta
from canasta import ACTION_COUNT, Game
from canasta.env import CanastaAECEnv, CanastaEnv

from conftest import LAYOUTS

IDS = [f"{p}-{n}" for p, n in LAYOUTS]


@pytest.mark.parametrize("preset, players", LAYOUTS, ids=IDS)
def test_pettingzoo_api(preset, players):
    env = CanastaAECEnv(preset, players)
    api_test(env, num_cycles=200)


@pytest.mark.parametrize("preset, players", LAYOUTS, ids=IDS)
def test_aec_episodes_end_with_the_deal_and_pay_its_scores(preset, players):
    env = CanastaAECEnv(preset, players)
    env.reset(seed=5)
    totals = {a: 0.0 for a in env.possible_agents}
    steps = 0
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        totals[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        mask = obs["action_mask"]
        assert mask.dtype == np.int8 and mask.shape == (ACTION_COUNT,) and mask.any()
        assert int(agent.split("_")[1]) == env.game.to_act
        env.step(int(np.flatnonzero(mask)[steps % mask.sum()]))
        steps += 1
    [deal] = env.game.history
    game = env.game
    for seat in range(players):
        side = game.side_of(seat)
        others = [t for s, t in enumerate(deal.totals) if s != side]
        assert totals[f"seat_{seat}"] == pytest.approx(deal.totals[side] - sum(others) / len(others))


def test_aec_seeds_make_the_same_episode():
    def run(seed):
        env = CanastaAECEnv("samba", 4)
        env.reset(seed=seed)
        for agent in env.agent_iter(max_iter=300):
            obs, _, term, trunc, _ = env.last()
            env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[-1]))
        return env.game.state_hash()

    assert run(3) == run(3) != run(4)


@pytest.mark.parametrize("opponents", ["greedy", "random", ["safe", "random", "greedy"]])
def test_gymnasium_env_plays_against_bots(opponents):
    env = CanastaEnv("official", 4, seat=1, opponents=opponents, deals=1)
    obs, info = env.reset(seed=2)
    assert env.observation_space.contains(obs)
    rng = np.random.default_rng(0)
    done, total, steps = False, 0.0, 0
    while not done:
        assert env.game.to_act == 1
        mask = info["action_mask"]
        assert (env.action_masks() == mask.astype(bool)).all()
        obs, reward, done, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        assert not truncated and env.observation_space.contains(obs)
        total += reward
        steps += 1
    [deal] = env.game.history
    mine = deal.totals[env.game.side_of(1)]
    theirs = deal.totals[1 - env.game.side_of(1)]
    assert total == mine - theirs and steps > 0
    assert not info["action_mask"].any()


def test_gymnasium_env_refuses_illegal_ids_and_bad_seats():
    env = CanastaEnv("official", 2, opponents="greedy")
    env.reset(seed=1)
    with pytest.raises(canasta.IllegalAction):
        env.step(canasta.DISCARD_BASE + 52)
    with pytest.raises(ValueError, match="seat 2"):
        CanastaEnv("official", 2, seat=2)
    with pytest.raises(ValueError, match="opponents"):
        CanastaEnv("official", 4, opponents=["greedy"])


def test_random_play_over_thousands_of_deals():
    """Every layout, random legal ids, 10 000 deals in all: no error, every deal scored."""
    deals = 0
    per_layout = 10000 // len(LAYOUTS) + 1
    for i, (preset, players) in enumerate(LAYOUTS):
        for seed in range(per_layout):
            g = Game(preset, players, seed=seed * 31 + i)
            g.seed_random(seed)
            steps = 0
            while g.deals_played == 0:
                assert g.step_random() is not None
                steps += 1
                assert steps < 20000
            [d] = g.history
            assert all(s.total == s.sum_of_items() for s in d.sides)
            deals += 1
    assert deals >= 10000
