"""Types of the extension module (the Rust crate canasta-python); docs/python.md."""

from typing import Any, Optional

import numpy as np
import numpy.typing as npt

ACTION_COUNT: int
DRAW: int
DECLINE: int
ASK: int
YES: int
NO: int
DISCARD_BASE: int
ADD_BASE: int
MAX_MELDS: int
OPTION_BASE: int
OPTION_SLOTS: int
CARD_KINDS: int
RECORD_FORMAT: str

def card_kinds() -> list[str]: ...
def presets() -> list[str]: ...
def bot_names() -> list[str]: ...

class Action:
    def __init__(self, notation: str) -> None: ...
    @staticmethod
    def draw() -> Action: ...
    @staticmethod
    def discard(card: str) -> Action: ...
    @property
    def kind(self) -> str: ...
    @property
    def discarded(self) -> Optional[str]: ...
    @property
    def cards(self) -> list[str]: ...
    @property
    def melds(self) -> list[tuple[Optional[int], list[str]]]: ...
    @property
    def yes(self) -> Optional[bool]: ...
    @property
    def fixed_id(self) -> Optional[int]: ...
    def describe(self) -> str: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

class Meld:
    id: int
    kind: str
    of: Optional[str]
    cards: list[str]
    canasta: Optional[str]
    creator: int

class SeatView:
    seat: int
    side: int
    playing: bool
    hand_len: int
    hand: Optional[list[str]]
    red_threes: list[str]
    known: list[str]
    had_turn: bool
    melded_before: bool

class SideView:
    side: int
    members: list[int]
    melds: list[Meld]
    melded: bool
    minimum: int
    score: int
    penalties: int

class SideScore:
    side: int
    melded_cards: int
    natural_canastas: int
    mixed_canastas: int
    sambas: int
    wild_canastas: int
    canasta_bonus: int
    red_threes: int
    red_three_bonus: int
    going_out_bonus: int
    cards_in_hand: int
    penalties: int
    total: int
    cumulative: int
    def sum_of_items(self) -> int: ...

class DealScore:
    deal: int
    end: str
    end_seat: int
    concealed: bool
    sides: list[SideScore]
    @property
    def totals(self) -> list[int]: ...

class View:
    seat: Optional[int]
    viewer: str
    preset: str
    players: int
    deal: int
    phase: str
    to_act: Optional[int]
    turn_seat: int
    dealer: int
    play_order: list[int]
    seats: list[SeatView]
    sides: list[SideView]
    pile: list[str]
    pile_frozen: bool
    pile_blocked: bool
    stock_len: int
    stock: Optional[list[str]]
    took_pile: bool
    melded_this_turn: bool
    ask: str
    last_deal: Optional[DealScore]
    deals_played: int
    winner: Optional[int]
    @property
    def hand(self) -> Optional[list[str]]: ...
    @property
    def pile_top(self) -> Optional[str]: ...

class Game:
    def __init__(
        self,
        preset: str = "official",
        players: int = 4,
        *,
        seed: int = 0,
        options: Optional[dict[str, Any]] = None,
        card_orders: Optional[list[str | list[str]]] = None,
        first_dealer: Optional[int] = None,
        start_scores: Optional[list[int]] = None,
    ) -> None: ...
    @staticmethod
    def replay(record: dict[str, Any] | str) -> Game: ...
    def record(self) -> dict[str, Any]: ...
    def clone(self) -> Game: ...
    @property
    def preset(self) -> str: ...
    @property
    def players(self) -> int: ...
    @property
    def sides(self) -> int: ...
    def side_of(self, seat: int) -> int: ...
    @property
    def seed(self) -> int: ...
    @property
    def to_act(self) -> Optional[int]: ...
    @property
    def phase(self) -> str: ...
    @property
    def over(self) -> bool: ...
    @property
    def deal(self) -> int: ...
    @property
    def deals_played(self) -> int: ...
    @property
    def scores(self) -> list[int]: ...
    @property
    def winner(self) -> Optional[int]: ...
    @property
    def history(self) -> list[DealScore]: ...
    def score_as_if(self, seat: int, went_out: bool = True) -> DealScore: ...
    def state_hash(self) -> int: ...
    def view(self, seat: Optional[int] = None, *, referee: bool = False) -> View: ...
    def legal_actions(self) -> list[Action]: ...
    @property
    def legal_complete(self) -> bool: ...
    def check(self, action: Action | str, seat: Optional[int] = None) -> None: ...
    def apply(self, action: Action | str, seat: Optional[int] = None) -> None: ...
    @property
    def actions(self) -> list[tuple[int, Action]]: ...
    def hand(self, seat: int) -> list[str]: ...
    def legal_ids(self) -> npt.NDArray[np.uint32]: ...
    def action_mask(self, out: Optional[npt.NDArray[np.int8]] = None) -> npt.NDArray[np.int8]: ...
    @property
    def unreachable(self) -> int: ...
    def action_of(self, id: int) -> Optional[Action]: ...
    def id_of(self, action: Action | str) -> Optional[int]: ...
    def step(self, id: int) -> None: ...
    def random_id(self) -> Optional[int]: ...
    def step_random(self) -> Optional[int]: ...
    def seed_random(self, seed: int) -> None: ...
    def observe(
        self, seat: int, out: Optional[npt.NDArray[np.float32]] = None
    ) -> npt.NDArray[np.float32]: ...
    @property
    def observation_size(self) -> int: ...
    def observation_layout(self) -> dict[str, tuple[int, list[int]]]: ...

class Bot:
    def __init__(self, name: str, seed: int = 0) -> None: ...
    @property
    def name(self) -> str: ...
    def choose(self, game: Game) -> Optional[Action]: ...
    def play(self, game: Game) -> Optional[Action]: ...
