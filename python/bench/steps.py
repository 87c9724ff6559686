"""Environment steps per second from Python, one core (docs/performance.md, docs/python.md).

    python python/bench/steps.py [--preset official] [--players 4] [--deals 2000]

Plays random legal actions, a deal per game, and prints for each way of stepping the steps per
second of CPU time (process time: one core, whatever else the machine runs):

- ``step_random``: the engine picks a random legal id and plays it (one call a step);
- ``legal_ids + step``: the legal ids as a NumPy array, a choice in Python, ``step(id)``;
- ``mask + numpy + step``: the mask into a reused array, ``numpy`` picks among its nonzero
  entries, ``step(id)``: what an agent with a masked policy does;
- ``+ observe``: the same with the observation of the seat to act into a reused array;
- ``observe + mask + step``: the observation and the mask into reused arrays, and a random
  legal id chosen in Rust: the environment's own cost per step, without NumPy's;
- ``PettingZoo AEC``: the whole environment (``last()``, a masked choice, ``step``).

Then the cost of one observation and of one mask, in microseconds.
"""

import argparse
import time

import numpy as np

import canasta
from canasta import ACTION_COUNT, Game


def timed(label, deals, run, results):
    start = time.process_time()
    steps = run(deals)
    spent = time.process_time() - start
    rate = steps / spent
    results.append((label, steps, spent, rate))
    print(f"{label:<28} {steps:>9} steps {spent:7.2f} s CPU {rate:>12,.0f} steps/s", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--preset", default="official")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--deals", type=int, default=2000, help="deals per measurement")
    args = ap.parse_args()
    preset, players = args.preset, args.players

    def games(deals):
        for seed in range(deals):
            g = Game(preset, players, seed=seed)
            g.seed_random(seed)
            yield g

    def step_random(deals):
        n = 0
        for g in games(deals):
            while g.deals_played == 0:
                g.step_random()
                n += 1
        return n

    def legal_ids_step(deals):
        n = 0
        rng = np.random.default_rng(0)
        draws = rng.integers(0, 1 << 30, size=1 << 16)
        for g in games(deals):
            while g.deals_played == 0:
                ids = g.legal_ids()
                g.step(int(ids[draws[n & 0xFFFF] % len(ids)]))
                n += 1
        return n

    def mask_numpy_step(deals, observe=False):
        n = 0
        rng = np.random.default_rng(0)
        mask = np.zeros(ACTION_COUNT, dtype=np.int8)
        obs = None
        for g in games(deals):
            if observe and obs is None:
                obs = np.zeros(g.observation_size, dtype=np.float32)
            while g.deals_played == 0:
                if observe:
                    g.observe(g.to_act, obs)
                g.action_mask(mask)
                legal = np.flatnonzero(mask)
                g.step(int(legal[rng.integers(len(legal))]))
                n += 1
        return n

    def observe_mask_step(deals):
        n = 0
        obs = mask = None
        for g in games(deals):
            if obs is None:
                obs = np.zeros(g.observation_size, dtype=np.float32)
                mask = np.zeros(ACTION_COUNT, dtype=np.int8)
            while g.deals_played == 0:
                g.observe(g.to_act, obs)
                g.action_mask(mask)
                g.step(g.random_id())
                n += 1
        return n

    def aec(deals):
        from canasta.env import CanastaAECEnv

        env = CanastaAECEnv(preset, players)
        rng = np.random.default_rng(0)
        n = 0
        for seed in range(deals):
            env.reset(seed=seed)
            for _agent in env.agent_iter():
                obs, _, term, trunc, _ = env.last()
                if term or trunc:
                    env.step(None)
                    continue
                legal = np.flatnonzero(obs["action_mask"])
                env.step(int(legal[rng.integers(len(legal))]))
                n += 1
        return n

    print(f"{preset}, {players} players, random legal actions, {args.deals} deals per line")
    results = []
    timed("step_random", args.deals, step_random, results)
    timed("legal_ids + step", args.deals, legal_ids_step, results)
    timed("mask + numpy + step", args.deals, mask_numpy_step, results)
    timed("+ observe", args.deals, lambda d: mask_numpy_step(d, observe=True), results)
    timed("observe + mask + step", args.deals, observe_mask_step, results)
    timed("PettingZoo AEC", max(1, args.deals // 10), aec, results)

    # The cost of an observation and of a mask, timed call by call in random play: each
    # position's first mask lists its legal actions; a second mask reuses the listing.
    obs = mask = None
    observe_ns = first_mask_ns = mask_ns = calls = 0
    clock = time.perf_counter_ns
    for g in games(max(1, args.deals // 4)):
        if obs is None:
            obs = np.zeros(g.observation_size, dtype=np.float32)
            mask = np.zeros(ACTION_COUNT, dtype=np.int8)
        while g.deals_played == 0:
            seat = g.to_act
            t0 = clock()
            g.action_mask(mask)
            t1 = clock()
            g.action_mask(mask)
            t2 = clock()
            g.observe(seat, obs)
            t3 = clock()
            first_mask_ns += t1 - t0
            mask_ns += t2 - t1
            observe_ns += t3 - t2
            calls += 1
            g.step_random()
    print(
        f"observation ({obs.size} float32): {observe_ns / calls / 1000:.2f} us; "
        f"mask ({ACTION_COUNT} int8) of a new position, its listing included: "
        f"{first_mask_ns / calls / 1000:.2f} us; the same mask again: {mask_ns / calls / 1000:.2f} us "
        f"({calls} positions)"
    )


if __name__ == "__main__":
    main()
