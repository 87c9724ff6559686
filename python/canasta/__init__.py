"""Canasta in Python: the project's Rust rules engine in-process.

- :class:`Game`: create a game from a preset, options and a seed (or card orders); the seat to
  act, the legal actions, apply an action, a seat's or a spectator's view, the state hash, the
  itemised scores, records and replays.
- :class:`Action`: an action, built from the engine's notation (``Action("take KS KH")``).
- :class:`Bot`: the built-in bots (``greedy``, ``random``, ``safe``).
- The fixed encodings (integer action ids with a mask, a float32 observation vector) on
  :class:`Game`, and the environments in :mod:`canasta.env` (PettingZoo AEC, Gymnasium).
- Network bots: :mod:`canasta.client` (blocking) and :mod:`canasta.aio` (asyncio) play a seat
  of a server's game with a ``choose(view, legal) -> action`` function (a :class:`Bot` is
  one); :class:`Reason` names the server's refusals; :mod:`canasta.v1` holds the protocol's
  generated stubs (the ``client`` extra: ``pip install './python[client]'``).

See docs/python.md in the repository.
"""

from . import _engine
from ._engine import (
    ACTION_COUNT,
    ADD_BASE,
    ASK,
    CARD_KINDS,
    DECLINE,
    DISCARD_BASE,
    DRAW,
    MAX_MELDS,
    NO,
    OPTION_BASE,
    OPTION_SLOTS,
    RECORD_FORMAT,
    YES,
    Action,
    Bot,
    DealScore,
    Game,
    Meld,
    SeatView,
    SideScore,
    SideView,
    View,
    bot_names,
    card_kinds,
    presets,
)
from .errors import (
    CanastaError,
    IllegalAction,
    NotationError,
    ReplayRefused,
    ServiceError,
    SetupRefused,
    WireError,
)
from .reasons import Reason

__all__ = [
    "ACTION_COUNT",
    "ADD_BASE",
    "ASK",
    "CARD_KINDS",
    "DECLINE",
    "DISCARD_BASE",
    "DRAW",
    "MAX_MELDS",
    "NO",
    "OPTION_BASE",
    "OPTION_SLOTS",
    "RECORD_FORMAT",
    "YES",
    "Action",
    "Bot",
    "CanastaError",
    "DealScore",
    "Game",
    "IllegalAction",
    "Meld",
    "NotationError",
    "Reason",
    "ReplayRefused",
    "SeatView",
    "ServiceError",
    "SetupRefused",
    "SideScore",
    "SideView",
    "View",
    "WireError",
    "bot_names",
    "card_kinds",
    "observation_fields",
    "presets",
]


def observation_fields(game: Game, observation):
    """The fields of an observation of ``game`` (from :meth:`Game.observe`) as a dict of NumPy
    views (no copy), each of the shape :meth:`Game.observation_layout` gives."""
    out = {}
    for name, (offset, shape) in game.observation_layout().items():
        size = 1
        for n in shape:
            size *= n
        out[name] = observation[offset : offset + size].reshape(shape)
    return out
