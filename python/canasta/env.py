"""Reinforcement-learning environments on the engine (needs ``pip install ./python[envs]``,
or pettingzoo and gymnasium installed beside the package).

- :class:`CanastaAECEnv`: PettingZoo's AEC API, one agent per seat (``seat_0`` ...), with an
  action mask in every observation.
- :class:`CanastaEnv`: Gymnasium's API for one seat; the other seats are built-in bots
  (``greedy``, ``random``, ``safe``).

Both use the package's fixed encodings (docs/python.md): an action is an integer id below
``ACTION_COUNT`` and the legal ids are those of the mask; an observation is the seat's float32
vector of :meth:`canasta.Game.observe`, which holds only what that seat may see.

Rewards: when a deal ends, every seat receives its side's deal total minus the mean of the
other sides' totals (points, as scored by the engine). An episode is ``deals`` deals (default
1), or the whole match with ``deals=None``.
"""

from __future__ import annotations

import numpy as np

try:
    import gymnasium
    from gymnasium import spaces
    from pettingzoo import AECEnv
except ImportError as e:  # pragma: no cover - the message is the point
    raise ImportError(
        "canasta.env needs pettingzoo and gymnasium: pip install './python[envs]' "
        "(or pip install pettingzoo gymnasium)"
    ) from e

from ._engine import ACTION_COUNT, Bot, Game

# Observations hold counts, flags and scores: bounded well inside float32's exact integers.
_OBS_BOUND = float(2**24)


def _deal_rewards(game: Game, deal) -> list[float]:
    """Each seat's reward for a finished deal: its side's total minus the mean of the others'."""
    totals = deal.totals
    sides = len(totals)
    rewards = []
    for seat in range(game.players):
        side = game.side_of(seat)
        others = [t for s, t in enumerate(totals) if s != side]
        mean = sum(others) / len(others) if others else 0.0
        rewards.append(float(totals[side] - mean) if sides > 1 else float(totals[side]))
    return rewards


class _Episode:
    """The game of an episode and when it ends."""

    def __init__(self, preset, players, options, deals, seed):
        self.game = Game(preset, players, seed=seed, options=options)
        self.game.seed_random(seed ^ 0x9E3779B97F4A7C15)
        self.deals = deals
        self.seen = 0

    def new_deals(self):
        """The deals finished since the last call."""
        history = self.game.history
        fresh = history[self.seen :]
        self.seen = len(history)
        return fresh

    def done(self) -> bool:
        g = self.game
        return g.over or (self.deals is not None and g.deals_played >= self.deals)


def _seed_from(np_random) -> int:
    return int(np_random.integers(0, 2**63 - 1))


class CanastaAECEnv(AECEnv):
    """Canasta for PettingZoo (AEC): every seat an agent.

    ``CanastaAECEnv(preset="official", players=4, options=None, deals=1, max_steps=None)``.
    ``observe(agent)`` is ``{"observation": float32 vector, "action_mask": int8 vector}``; the
    mask is all zeros for an agent that is not to act. ``max_steps`` truncates an episode
    after that many actions (useful with ``deals=None``).
    """

    metadata = {"name": "canasta_v0", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(
        self,
        preset: str = "official",
        players: int = 4,
        options: dict | None = None,
        deals: int | None = 1,
        max_steps: int | None = None,
        render_mode: str | None = None,
    ):
        super().__init__()
        self.preset = preset
        self.players = players
        self.options = options
        self.deals = deals
        self.max_steps = max_steps
        self.render_mode = render_mode
        probe = Game(preset, players, options=options)
        self.possible_agents = [f"seat_{i}" for i in range(players)]
        self._size = probe.observation_size
        self._layout = probe.observation_layout()
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(
                    -_OBS_BOUND, _OBS_BOUND, shape=(self._size,), dtype=np.float32
                ),
                "action_mask": spaces.Box(0, 1, shape=(ACTION_COUNT,), dtype=np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(ACTION_COUNT) for a in self.possible_agents}
        self._episode = None
        self._np_random = np.random.default_rng()

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    @property
    def game(self) -> Game:
        """The episode's game (the engine's full state: for analysis, not for an agent)."""
        return self._episode.game

    def reset(self, seed=None, options=None):
        if seed is not None:
            self._np_random = np.random.default_rng(seed)
        self._episode = _Episode(
            self.preset, self.players, self.options, self.deals, _seed_from(self._np_random)
        )
        self._steps = 0
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = f"seat_{self.game.to_act}"

    def observe(self, agent):
        seat = int(agent.rsplit("_", 1)[1])
        game = self.game
        mask = np.zeros(ACTION_COUNT, dtype=np.int8)
        if game.to_act == seat and not self._ended():
            game.action_mask(mask)
        return {"observation": game.observe(seat), "action_mask": mask}

    def _ended(self) -> bool:
        return any(self.terminations.values()) or any(self.truncations.values())

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self.game
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: 0.0 for a in self.agents}
        game.step(int(action))
        self._steps += 1
        for deal in self._episode.new_deals():
            for seat, r in enumerate(_deal_rewards(game, deal)):
                self.rewards[f"seat_{seat}"] += r
        if self._episode.done():
            self.terminations = {a: True for a in self.agents}
        elif self.max_steps is not None and self._steps >= self.max_steps:
            self.truncations = {a: True for a in self.agents}
        if self._ended():
            # Every agent then takes its dead step, from the one that just acted.
            self.agent_selection = agent
        else:
            self.agent_selection = f"seat_{game.to_act}"
        self._accumulate_rewards()
        if self.render_mode == "ansi":
            self.render()

    def render(self):
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode (use render_mode='ansi')")
            return None
        return repr(self.game.view(None))

    def close(self):
        pass


class CanastaEnv(gymnasium.Env):
    """Canasta for Gymnasium: one seat plays, built-in bots play the others.

    ``CanastaEnv(preset="official", players=4, seat=0, opponents="greedy", options=None,
    deals=1)``: ``opponents`` is a bot name for every other seat, or a list with one name (or
    :class:`canasta.Bot`) per other seat in seat order. The seat's partner, if any, is one of
    the bots. Observations are the seat's float32 vectors; the legal ids are in
    ``info["action_mask"]`` and in :meth:`action_masks` (as MaskablePPO expects). An illegal id
    raises :class:`canasta.IllegalAction`.
    """

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        preset: str = "official",
        players: int = 4,
        seat: int = 0,
        opponents="greedy",
        options: dict | None = None,
        deals: int | None = 1,
        render_mode: str | None = None,
    ):
        super().__init__()
        self.preset = preset
        self.players = players
        self.seat = seat
        self.options = options
        self.deals = deals
        self.render_mode = render_mode
        probe = Game(preset, players, options=options)
        if not 0 <= seat < players:
            raise ValueError(f"seat {seat} is not at a table of {players}: choose 0 to {players - 1}")
        others = [s for s in range(players) if s != seat]
        if isinstance(opponents, (str, Bot)):
            opponents = [opponents] * len(others)
        if len(opponents) != len(others):
            raise ValueError(
                f"{len(opponents)} opponents for {len(others)} other seats: give one per seat, "
                "or one name for all"
            )
        self._opponent_specs = dict(zip(others, opponents))
        self.observation_space = spaces.Box(
            -_OBS_BOUND, _OBS_BOUND, shape=(probe.observation_size,), dtype=np.float32
        )
        self.action_space = spaces.Discrete(ACTION_COUNT)
        self._mask = np.zeros(ACTION_COUNT, dtype=np.int8)
        self._episode = None

    @property
    def game(self) -> Game:
        """The episode's game (the engine's full state: for analysis, not for an agent)."""
        return self._episode.game

    def _bots(self, seed: int):
        bots = {}
        for s, spec in self._opponent_specs.items():
            bots[s] = spec if isinstance(spec, Bot) else Bot(spec, seed=seed + s)
        return bots

    def _advance(self) -> float:
        """Lets the bots play until the seat must act or the episode ends; the seat's reward
        for the deals finished meanwhile."""
        game = self.game
        reward = 0.0
        while True:
            for deal in self._episode.new_deals():
                reward += _deal_rewards(game, deal)[self.seat]
            if self._episode.done() or game.to_act == self.seat:
                return reward
            self._bots_by_seat[game.to_act].play(game)

    def _obs_info(self):
        game = self.game
        self._mask.fill(0)
        if not self._episode.done():
            game.action_mask(self._mask)
        return game.observe(self.seat), {"action_mask": self._mask.copy()}

    def action_masks(self) -> np.ndarray:
        """The legal ids of the current position as a boolean array."""
        return self._mask.astype(bool)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        game_seed = _seed_from(self.np_random)
        self._episode = _Episode(self.preset, self.players, self.options, self.deals, game_seed)
        self._bots_by_seat = self._bots(game_seed)
        self._advance()
        return self._obs_info()

    def step(self, action):
        self.game.step(int(action))
        reward = self._advance()
        obs, info = self._obs_info()
        terminated = self._episode.done()
        return obs, reward, terminated, False, info

    def render(self):
        if self.render_mode == "ansi":
            return repr(self.game.view(self.seat))
        return None
