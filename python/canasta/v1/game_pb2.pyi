from canasta.v1 import actions_pb2 as _actions_pb2
from canasta.v1 import cards_pb2 as _cards_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Preset(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PRESET_UNSPECIFIED: _ClassVar[Preset]
    PRESET_OFFICIAL: _ClassVar[Preset]
    PRESET_WIENER: _ClassVar[Preset]
    PRESET_SAMBA: _ClassVar[Preset]
    PRESET_SWISS: _ClassVar[Preset]

class TimeoutPolicy(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TIMEOUT_POLICY_UNSPECIFIED: _ClassVar[TimeoutPolicy]
    TIMEOUT_POLICY_FALLBACK_MOVE: _ClassVar[TimeoutPolicy]
    TIMEOUT_POLICY_FORFEIT: _ClassVar[TimeoutPolicy]

class GameStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    GAME_STATUS_UNSPECIFIED: _ClassVar[GameStatus]
    GAME_STATUS_WAITING: _ClassVar[GameStatus]
    GAME_STATUS_PLAYING: _ClassVar[GameStatus]
    GAME_STATUS_FINISHED: _ClassVar[GameStatus]

class Phase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PHASE_UNSPECIFIED: _ClassVar[Phase]
    PHASE_DRAW: _ClassVar[Phase]
    PHASE_PLAY: _ClassVar[Phase]
    PHASE_ANSWER: _ClassVar[Phase]
    PHASE_OVER: _ClassVar[Phase]

class MeldKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MELD_KIND_UNSPECIFIED: _ClassVar[MeldKind]
    MELD_KIND_GROUP: _ClassVar[MeldKind]
    MELD_KIND_BLACK_THREES: _ClassVar[MeldKind]
    MELD_KIND_SEQUENCE: _ClassVar[MeldKind]
    MELD_KIND_WILD: _ClassVar[MeldKind]

class CanastaKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CANASTA_KIND_UNSPECIFIED: _ClassVar[CanastaKind]
    CANASTA_KIND_NATURAL: _ClassVar[CanastaKind]
    CANASTA_KIND_MIXED: _ClassVar[CanastaKind]
    CANASTA_KIND_SAMBA: _ClassVar[CanastaKind]
    CANASTA_KIND_WILD_JOKERS: _ClassVar[CanastaKind]
    CANASTA_KIND_WILD_DEUCES: _ClassVar[CanastaKind]
    CANASTA_KIND_WILD_MIXED: _ClassVar[CanastaKind]

class AskState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ASK_STATE_UNSPECIFIED: _ClassVar[AskState]
    ASK_STATE_NOT_ASKED: _ClassVar[AskState]
    ASK_STATE_PENDING: _ClassVar[AskState]
    ASK_STATE_YES: _ClassVar[AskState]
    ASK_STATE_NO: _ClassVar[AskState]

class DealEndKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DEAL_END_KIND_UNSPECIFIED: _ClassVar[DealEndKind]
    DEAL_END_KIND_WENT_OUT: _ClassVar[DealEndKind]
    DEAL_END_KIND_STOCK_EXHAUSTED: _ClassVar[DealEndKind]
    DEAL_END_KIND_LAST_RED_THREE: _ClassVar[DealEndKind]

class MatchEndKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MATCH_END_KIND_UNSPECIFIED: _ClassVar[MatchEndKind]
    MATCH_END_KIND_TARGET: _ClassVar[MatchEndKind]
    MATCH_END_KIND_FORFEIT: _ClassVar[MatchEndKind]
    MATCH_END_KIND_ABANDONED: _ClassVar[MatchEndKind]
    MATCH_END_KIND_EXPIRED: _ClassVar[MatchEndKind]
    MATCH_END_KIND_CANCELLED: _ClassVar[MatchEndKind]

class RedThreeSource(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RED_THREE_SOURCE_UNSPECIFIED: _ClassVar[RedThreeSource]
    RED_THREE_SOURCE_DEALT: _ClassVar[RedThreeSource]
    RED_THREE_SOURCE_DRAWN: _ClassVar[RedThreeSource]
    RED_THREE_SOURCE_PILE: _ClassVar[RedThreeSource]
PRESET_UNSPECIFIED: Preset
PRESET_OFFICIAL: Preset
PRESET_WIENER: Preset
PRESET_SAMBA: Preset
PRESET_SWISS: Preset
TIMEOUT_POLICY_UNSPECIFIED: TimeoutPolicy
TIMEOUT_POLICY_FALLBACK_MOVE: TimeoutPolicy
TIMEOUT_POLICY_FORFEIT: TimeoutPolicy
GAME_STATUS_UNSPECIFIED: GameStatus
GAME_STATUS_WAITING: GameStatus
GAME_STATUS_PLAYING: GameStatus
GAME_STATUS_FINISHED: GameStatus
PHASE_UNSPECIFIED: Phase
PHASE_DRAW: Phase
PHASE_PLAY: Phase
PHASE_ANSWER: Phase
PHASE_OVER: Phase
MELD_KIND_UNSPECIFIED: MeldKind
MELD_KIND_GROUP: MeldKind
MELD_KIND_BLACK_THREES: MeldKind
MELD_KIND_SEQUENCE: MeldKind
MELD_KIND_WILD: MeldKind
CANASTA_KIND_UNSPECIFIED: CanastaKind
CANASTA_KIND_NATURAL: CanastaKind
CANASTA_KIND_MIXED: CanastaKind
CANASTA_KIND_SAMBA: CanastaKind
CANASTA_KIND_WILD_JOKERS: CanastaKind
CANASTA_KIND_WILD_DEUCES: CanastaKind
CANASTA_KIND_WILD_MIXED: CanastaKind
ASK_STATE_UNSPECIFIED: AskState
ASK_STATE_NOT_ASKED: AskState
ASK_STATE_PENDING: AskState
ASK_STATE_YES: AskState
ASK_STATE_NO: AskState
DEAL_END_KIND_UNSPECIFIED: DealEndKind
DEAL_END_KIND_WENT_OUT: DealEndKind
DEAL_END_KIND_STOCK_EXHAUSTED: DealEndKind
DEAL_END_KIND_LAST_RED_THREE: DealEndKind
MATCH_END_KIND_UNSPECIFIED: MatchEndKind
MATCH_END_KIND_TARGET: MatchEndKind
MATCH_END_KIND_FORFEIT: MatchEndKind
MATCH_END_KIND_ABANDONED: MatchEndKind
MATCH_END_KIND_EXPIRED: MatchEndKind
MATCH_END_KIND_CANCELLED: MatchEndKind
RED_THREE_SOURCE_UNSPECIFIED: RedThreeSource
RED_THREE_SOURCE_DEALT: RedThreeSource
RED_THREE_SOURCE_DRAWN: RedThreeSource
RED_THREE_SOURCE_PILE: RedThreeSource

class RuleSet(_message.Message):
    __slots__ = ("preset", "player_count", "options")
    class OptionsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    PRESET_FIELD_NUMBER: _ClassVar[int]
    PLAYER_COUNT_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    preset: Preset
    player_count: int
    options: _containers.ScalarMap[str, str]
    def __init__(self, preset: _Optional[_Union[Preset, str]] = ..., player_count: _Optional[int] = ..., options: _Optional[_Mapping[str, str]] = ...) -> None: ...

class RuleOption(_message.Message):
    __slots__ = ("name", "value", "description")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    name: str
    value: str
    description: str
    def __init__(self, name: _Optional[str] = ..., value: _Optional[str] = ..., description: _Optional[str] = ...) -> None: ...

class TimeControl(_message.Message):
    __slots__ = ("move_budget_ms", "policy")
    MOVE_BUDGET_MS_FIELD_NUMBER: _ClassVar[int]
    POLICY_FIELD_NUMBER: _ClassVar[int]
    move_budget_ms: int
    policy: TimeoutPolicy
    def __init__(self, move_budget_ms: _Optional[int] = ..., policy: _Optional[_Union[TimeoutPolicy, str]] = ...) -> None: ...

class SeatInfo(_message.Message):
    __slots__ = ("seat", "side", "occupied", "display_name", "bot")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SIDE_FIELD_NUMBER: _ClassVar[int]
    OCCUPIED_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    side: int
    occupied: bool
    display_name: str
    bot: str
    def __init__(self, seat: _Optional[int] = ..., side: _Optional[int] = ..., occupied: _Optional[bool] = ..., display_name: _Optional[str] = ..., bot: _Optional[str] = ...) -> None: ...

class GameSummary(_message.Message):
    __slots__ = ("game_id", "rules", "status", "seats", "seq", "time_control", "result", "created_unix_ms")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    TIME_CONTROL_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    CREATED_UNIX_MS_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    rules: RuleSet
    status: GameStatus
    seats: _containers.RepeatedCompositeFieldContainer[SeatInfo]
    seq: int
    time_control: TimeControl
    result: MatchResult
    created_unix_ms: int
    def __init__(self, game_id: _Optional[str] = ..., rules: _Optional[_Union[RuleSet, _Mapping]] = ..., status: _Optional[_Union[GameStatus, str]] = ..., seats: _Optional[_Iterable[_Union[SeatInfo, _Mapping]]] = ..., seq: _Optional[int] = ..., time_control: _Optional[_Union[TimeControl, _Mapping]] = ..., result: _Optional[_Union[MatchResult, _Mapping]] = ..., created_unix_ms: _Optional[int] = ...) -> None: ...

class TableMeld(_message.Message):
    __slots__ = ("index", "kind", "rank", "suit", "cards", "creator_seat", "canasta")
    INDEX_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    SUIT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    CREATOR_SEAT_FIELD_NUMBER: _ClassVar[int]
    CANASTA_FIELD_NUMBER: _ClassVar[int]
    index: int
    kind: MeldKind
    rank: _cards_pb2.Rank
    suit: _cards_pb2.Suit
    cards: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Card]
    creator_seat: int
    canasta: CanastaKind
    def __init__(self, index: _Optional[int] = ..., kind: _Optional[_Union[MeldKind, str]] = ..., rank: _Optional[_Union[_cards_pb2.Rank, str]] = ..., suit: _Optional[_Union[_cards_pb2.Suit, str]] = ..., cards: _Optional[_Iterable[_Union[_cards_pb2.Card, _Mapping]]] = ..., creator_seat: _Optional[int] = ..., canasta: _Optional[_Union[CanastaKind, str]] = ...) -> None: ...

class SeatView(_message.Message):
    __slots__ = ("seat", "side", "display_name", "occupied", "playing", "hand_count", "hand", "red_threes", "had_turn", "melded_before", "known", "bot", "passed", "discarded")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SIDE_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    OCCUPIED_FIELD_NUMBER: _ClassVar[int]
    PLAYING_FIELD_NUMBER: _ClassVar[int]
    HAND_COUNT_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    RED_THREES_FIELD_NUMBER: _ClassVar[int]
    HAD_TURN_FIELD_NUMBER: _ClassVar[int]
    MELDED_BEFORE_FIELD_NUMBER: _ClassVar[int]
    KNOWN_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    PASSED_FIELD_NUMBER: _ClassVar[int]
    DISCARDED_FIELD_NUMBER: _ClassVar[int]
    seat: int
    side: int
    display_name: str
    occupied: bool
    playing: bool
    hand_count: int
    hand: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Card]
    red_threes: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Card]
    had_turn: bool
    melded_before: bool
    known: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Card]
    bot: str
    passed: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Card]
    discarded: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Card]
    def __init__(self, seat: _Optional[int] = ..., side: _Optional[int] = ..., display_name: _Optional[str] = ..., occupied: _Optional[bool] = ..., playing: _Optional[bool] = ..., hand_count: _Optional[int] = ..., hand: _Optional[_Iterable[_Union[_cards_pb2.Card, _Mapping]]] = ..., red_threes: _Optional[_Iterable[_Union[_cards_pb2.Card, _Mapping]]] = ..., had_turn: _Optional[bool] = ..., melded_before: _Optional[bool] = ..., known: _Optional[_Iterable[_Union[_cards_pb2.Card, _Mapping]]] = ..., bot: _Optional[str] = ..., passed: _Optional[_Iterable[_Union[_cards_pb2.Card, _Mapping]]] = ..., discarded: _Optional[_Iterable[_Union[_cards_pb2.Card, _Mapping]]] = ...) -> None: ...

class SideView(_message.Message):
    __slots__ = ("side", "seats", "melds", "melded", "minimum", "score", "penalties")
    SIDE_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    MELDS_FIELD_NUMBER: _ClassVar[int]
    MELDED_FIELD_NUMBER: _ClassVar[int]
    MINIMUM_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    PENALTIES_FIELD_NUMBER: _ClassVar[int]
    side: int
    seats: _containers.RepeatedScalarFieldContainer[int]
    melds: _containers.RepeatedCompositeFieldContainer[TableMeld]
    melded: bool
    minimum: int
    score: int
    penalties: int
    def __init__(self, side: _Optional[int] = ..., seats: _Optional[_Iterable[int]] = ..., melds: _Optional[_Iterable[_Union[TableMeld, _Mapping]]] = ..., melded: _Optional[bool] = ..., minimum: _Optional[int] = ..., score: _Optional[int] = ..., penalties: _Optional[int] = ...) -> None: ...

class TurnState(_message.Message):
    __slots__ = ("took_pile", "melded", "added_to_other_melds", "ask")
    TOOK_PILE_FIELD_NUMBER: _ClassVar[int]
    MELDED_FIELD_NUMBER: _ClassVar[int]
    ADDED_TO_OTHER_MELDS_FIELD_NUMBER: _ClassVar[int]
    ASK_FIELD_NUMBER: _ClassVar[int]
    took_pile: bool
    melded: bool
    added_to_other_melds: bool
    ask: AskState
    def __init__(self, took_pile: _Optional[bool] = ..., melded: _Optional[bool] = ..., added_to_other_melds: _Optional[bool] = ..., ask: _Optional[_Union[AskState, str]] = ...) -> None: ...

class GameView(_message.Message):
    __slots__ = ("game_id", "seq", "status", "viewer_seat", "deal", "phase", "to_act", "turn_seat", "dealer", "play_order", "seats", "sides", "pile", "pile_frozen", "pile_blocked", "stock_count", "turn", "last_deal", "deals_played", "result")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    VIEWER_SEAT_FIELD_NUMBER: _ClassVar[int]
    DEAL_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    TURN_SEAT_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    PLAY_ORDER_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    SIDES_FIELD_NUMBER: _ClassVar[int]
    PILE_FIELD_NUMBER: _ClassVar[int]
    PILE_FROZEN_FIELD_NUMBER: _ClassVar[int]
    PILE_BLOCKED_FIELD_NUMBER: _ClassVar[int]
    STOCK_COUNT_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    LAST_DEAL_FIELD_NUMBER: _ClassVar[int]
    DEALS_PLAYED_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    seq: int
    status: GameStatus
    viewer_seat: int
    deal: int
    phase: Phase
    to_act: int
    turn_seat: int
    dealer: int
    play_order: _containers.RepeatedScalarFieldContainer[int]
    seats: _containers.RepeatedCompositeFieldContainer[SeatView]
    sides: _containers.RepeatedCompositeFieldContainer[SideView]
    pile: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Card]
    pile_frozen: bool
    pile_blocked: bool
    stock_count: int
    turn: TurnState
    last_deal: DealScore
    deals_played: int
    result: MatchResult
    def __init__(self, game_id: _Optional[str] = ..., seq: _Optional[int] = ..., status: _Optional[_Union[GameStatus, str]] = ..., viewer_seat: _Optional[int] = ..., deal: _Optional[int] = ..., phase: _Optional[_Union[Phase, str]] = ..., to_act: _Optional[int] = ..., turn_seat: _Optional[int] = ..., dealer: _Optional[int] = ..., play_order: _Optional[_Iterable[int]] = ..., seats: _Optional[_Iterable[_Union[SeatView, _Mapping]]] = ..., sides: _Optional[_Iterable[_Union[SideView, _Mapping]]] = ..., pile: _Optional[_Iterable[_Union[_cards_pb2.Card, _Mapping]]] = ..., pile_frozen: _Optional[bool] = ..., pile_blocked: _Optional[bool] = ..., stock_count: _Optional[int] = ..., turn: _Optional[_Union[TurnState, _Mapping]] = ..., last_deal: _Optional[_Union[DealScore, _Mapping]] = ..., deals_played: _Optional[int] = ..., result: _Optional[_Union[MatchResult, _Mapping]] = ...) -> None: ...

class TakeOption(_message.Message):
    __slots__ = ("meld_index", "naturals", "wilds", "with_melds")
    MELD_INDEX_FIELD_NUMBER: _ClassVar[int]
    NATURALS_FIELD_NUMBER: _ClassVar[int]
    WILDS_FIELD_NUMBER: _ClassVar[int]
    WITH_MELDS_FIELD_NUMBER: _ClassVar[int]
    meld_index: int
    naturals: int
    wilds: int
    with_melds: bool
    def __init__(self, meld_index: _Optional[int] = ..., naturals: _Optional[int] = ..., wilds: _Optional[int] = ..., with_melds: _Optional[bool] = ...) -> None: ...

class LegalChoices(_message.Message):
    __slots__ = ("seat", "can_draw", "pile_takes", "must_take_pile", "can_decline_pile", "meld_ranks", "sequence_suits", "can_meld_wilds", "add_to_melds", "can_discard", "can_go_out", "can_ask_partner", "must_answer", "minimum_remaining", "actions", "actions_truncated", "summary_incomplete")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CAN_DRAW_FIELD_NUMBER: _ClassVar[int]
    PILE_TAKES_FIELD_NUMBER: _ClassVar[int]
    MUST_TAKE_PILE_FIELD_NUMBER: _ClassVar[int]
    CAN_DECLINE_PILE_FIELD_NUMBER: _ClassVar[int]
    MELD_RANKS_FIELD_NUMBER: _ClassVar[int]
    SEQUENCE_SUITS_FIELD_NUMBER: _ClassVar[int]
    CAN_MELD_WILDS_FIELD_NUMBER: _ClassVar[int]
    ADD_TO_MELDS_FIELD_NUMBER: _ClassVar[int]
    CAN_DISCARD_FIELD_NUMBER: _ClassVar[int]
    CAN_GO_OUT_FIELD_NUMBER: _ClassVar[int]
    CAN_ASK_PARTNER_FIELD_NUMBER: _ClassVar[int]
    MUST_ANSWER_FIELD_NUMBER: _ClassVar[int]
    MINIMUM_REMAINING_FIELD_NUMBER: _ClassVar[int]
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    ACTIONS_TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_INCOMPLETE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    can_draw: bool
    pile_takes: _containers.RepeatedCompositeFieldContainer[TakeOption]
    must_take_pile: bool
    can_decline_pile: bool
    meld_ranks: _containers.RepeatedScalarFieldContainer[_cards_pb2.Rank]
    sequence_suits: _containers.RepeatedScalarFieldContainer[_cards_pb2.Suit]
    can_meld_wilds: bool
    add_to_melds: _containers.RepeatedScalarFieldContainer[int]
    can_discard: bool
    can_go_out: bool
    can_ask_partner: bool
    must_answer: bool
    minimum_remaining: int
    actions: _containers.RepeatedCompositeFieldContainer[_actions_pb2.Action]
    actions_truncated: bool
    summary_incomplete: bool
    def __init__(self, seat: _Optional[int] = ..., can_draw: _Optional[bool] = ..., pile_takes: _Optional[_Iterable[_Union[TakeOption, _Mapping]]] = ..., must_take_pile: _Optional[bool] = ..., can_decline_pile: _Optional[bool] = ..., meld_ranks: _Optional[_Iterable[_Union[_cards_pb2.Rank, str]]] = ..., sequence_suits: _Optional[_Iterable[_Union[_cards_pb2.Suit, str]]] = ..., can_meld_wilds: _Optional[bool] = ..., add_to_melds: _Optional[_Iterable[int]] = ..., can_discard: _Optional[bool] = ..., can_go_out: _Optional[bool] = ..., can_ask_partner: _Optional[bool] = ..., must_answer: _Optional[bool] = ..., minimum_remaining: _Optional[int] = ..., actions: _Optional[_Iterable[_Union[_actions_pb2.Action, _Mapping]]] = ..., actions_truncated: _Optional[bool] = ..., summary_incomplete: _Optional[bool] = ...) -> None: ...

class Prompt(_message.Message):
    __slots__ = ("game_id", "seq", "seat", "legal", "time_left_ms", "view")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    LEGAL_FIELD_NUMBER: _ClassVar[int]
    TIME_LEFT_MS_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    seq: int
    seat: int
    legal: LegalChoices
    time_left_ms: int
    view: GameView
    def __init__(self, game_id: _Optional[str] = ..., seq: _Optional[int] = ..., seat: _Optional[int] = ..., legal: _Optional[_Union[LegalChoices, _Mapping]] = ..., time_left_ms: _Optional[int] = ..., view: _Optional[_Union[GameView, _Mapping]] = ...) -> None: ...

class SideScore(_message.Message):
    __slots__ = ("side", "melded_cards", "natural_canastas", "mixed_canastas", "sambas", "wild_canastas", "canasta_bonus", "red_threes", "red_three_bonus", "going_out_bonus", "cards_in_hand", "penalties", "total", "cumulative")
    SIDE_FIELD_NUMBER: _ClassVar[int]
    MELDED_CARDS_FIELD_NUMBER: _ClassVar[int]
    NATURAL_CANASTAS_FIELD_NUMBER: _ClassVar[int]
    MIXED_CANASTAS_FIELD_NUMBER: _ClassVar[int]
    SAMBAS_FIELD_NUMBER: _ClassVar[int]
    WILD_CANASTAS_FIELD_NUMBER: _ClassVar[int]
    CANASTA_BONUS_FIELD_NUMBER: _ClassVar[int]
    RED_THREES_FIELD_NUMBER: _ClassVar[int]
    RED_THREE_BONUS_FIELD_NUMBER: _ClassVar[int]
    GOING_OUT_BONUS_FIELD_NUMBER: _ClassVar[int]
    CARDS_IN_HAND_FIELD_NUMBER: _ClassVar[int]
    PENALTIES_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    CUMULATIVE_FIELD_NUMBER: _ClassVar[int]
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
    def __init__(self, side: _Optional[int] = ..., melded_cards: _Optional[int] = ..., natural_canastas: _Optional[int] = ..., mixed_canastas: _Optional[int] = ..., sambas: _Optional[int] = ..., wild_canastas: _Optional[int] = ..., canasta_bonus: _Optional[int] = ..., red_threes: _Optional[int] = ..., red_three_bonus: _Optional[int] = ..., going_out_bonus: _Optional[int] = ..., cards_in_hand: _Optional[int] = ..., penalties: _Optional[int] = ..., total: _Optional[int] = ..., cumulative: _Optional[int] = ...) -> None: ...

class DealScore(_message.Message):
    __slots__ = ("deal", "end", "seat", "concealed", "sides")
    DEAL_FIELD_NUMBER: _ClassVar[int]
    END_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CONCEALED_FIELD_NUMBER: _ClassVar[int]
    SIDES_FIELD_NUMBER: _ClassVar[int]
    deal: int
    end: DealEndKind
    seat: int
    concealed: bool
    sides: _containers.RepeatedCompositeFieldContainer[SideScore]
    def __init__(self, deal: _Optional[int] = ..., end: _Optional[_Union[DealEndKind, str]] = ..., seat: _Optional[int] = ..., concealed: _Optional[bool] = ..., sides: _Optional[_Iterable[_Union[SideScore, _Mapping]]] = ...) -> None: ...

class MatchResult(_message.Message):
    __slots__ = ("finished", "winner_side", "totals", "end", "forfeited_side")
    FINISHED_FIELD_NUMBER: _ClassVar[int]
    WINNER_SIDE_FIELD_NUMBER: _ClassVar[int]
    TOTALS_FIELD_NUMBER: _ClassVar[int]
    END_FIELD_NUMBER: _ClassVar[int]
    FORFEITED_SIDE_FIELD_NUMBER: _ClassVar[int]
    finished: bool
    winner_side: int
    totals: _containers.RepeatedScalarFieldContainer[int]
    end: MatchEndKind
    forfeited_side: int
    def __init__(self, finished: _Optional[bool] = ..., winner_side: _Optional[int] = ..., totals: _Optional[_Iterable[int]] = ..., end: _Optional[_Union[MatchEndKind, str]] = ..., forfeited_side: _Optional[int] = ...) -> None: ...

class Placed(_message.Message):
    __slots__ = ("meld_index", "cards", "new_meld")
    MELD_INDEX_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    NEW_MELD_FIELD_NUMBER: _ClassVar[int]
    meld_index: int
    cards: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Card]
    new_meld: bool
    def __init__(self, meld_index: _Optional[int] = ..., cards: _Optional[_Iterable[_Union[_cards_pb2.Card, _Mapping]]] = ..., new_meld: _Optional[bool] = ...) -> None: ...

class SeatJoined(_message.Message):
    __slots__ = ("seat", "display_name")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    seat: int
    display_name: str
    def __init__(self, seat: _Optional[int] = ..., display_name: _Optional[str] = ...) -> None: ...

class SeatLeft(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

class GameStarted(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class HandView(_message.Message):
    __slots__ = ("seat", "count", "cards")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    count: int
    cards: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Card]
    def __init__(self, seat: _Optional[int] = ..., count: _Optional[int] = ..., cards: _Optional[_Iterable[_Union[_cards_pb2.Card, _Mapping]]] = ...) -> None: ...

class DealStarted(_message.Message):
    __slots__ = ("deal", "dealer", "play_order", "hands", "pile", "stock_count", "minimums", "cutter", "cut_cards")
    DEAL_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    PLAY_ORDER_FIELD_NUMBER: _ClassVar[int]
    HANDS_FIELD_NUMBER: _ClassVar[int]
    PILE_FIELD_NUMBER: _ClassVar[int]
    STOCK_COUNT_FIELD_NUMBER: _ClassVar[int]
    MINIMUMS_FIELD_NUMBER: _ClassVar[int]
    CUTTER_FIELD_NUMBER: _ClassVar[int]
    CUT_CARDS_FIELD_NUMBER: _ClassVar[int]
    deal: int
    dealer: int
    play_order: _containers.RepeatedScalarFieldContainer[int]
    hands: _containers.RepeatedCompositeFieldContainer[HandView]
    pile: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Card]
    stock_count: int
    minimums: _containers.RepeatedScalarFieldContainer[int]
    cutter: int
    cut_cards: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Card]
    def __init__(self, deal: _Optional[int] = ..., dealer: _Optional[int] = ..., play_order: _Optional[_Iterable[int]] = ..., hands: _Optional[_Iterable[_Union[HandView, _Mapping]]] = ..., pile: _Optional[_Iterable[_Union[_cards_pb2.Card, _Mapping]]] = ..., stock_count: _Optional[int] = ..., minimums: _Optional[_Iterable[int]] = ..., cutter: _Optional[int] = ..., cut_cards: _Optional[_Iterable[_Union[_cards_pb2.Card, _Mapping]]] = ...) -> None: ...

class TurnStarted(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

class RedThreeLaid(_message.Message):
    __slots__ = ("seat", "card", "source")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    card: _cards_pb2.Card
    source: RedThreeSource
    def __init__(self, seat: _Optional[int] = ..., card: _Optional[_Union[_cards_pb2.Card, _Mapping]] = ..., source: _Optional[_Union[RedThreeSource, str]] = ...) -> None: ...

class Drew(_message.Message):
    __slots__ = ("seat", "count", "cards")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    count: int
    cards: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Card]
    def __init__(self, seat: _Optional[int] = ..., count: _Optional[int] = ..., cards: _Optional[_Iterable[_Union[_cards_pb2.Card, _Mapping]]] = ...) -> None: ...

class PileTaken(_message.Message):
    __slots__ = ("seat", "top", "placed", "picked_up")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TOP_FIELD_NUMBER: _ClassVar[int]
    PLACED_FIELD_NUMBER: _ClassVar[int]
    PICKED_UP_FIELD_NUMBER: _ClassVar[int]
    seat: int
    top: _cards_pb2.Card
    placed: _containers.RepeatedCompositeFieldContainer[Placed]
    picked_up: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Card]
    def __init__(self, seat: _Optional[int] = ..., top: _Optional[_Union[_cards_pb2.Card, _Mapping]] = ..., placed: _Optional[_Iterable[_Union[Placed, _Mapping]]] = ..., picked_up: _Optional[_Iterable[_Union[_cards_pb2.Card, _Mapping]]] = ...) -> None: ...

class Melded(_message.Message):
    __slots__ = ("seat", "placed")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLACED_FIELD_NUMBER: _ClassVar[int]
    seat: int
    placed: _containers.RepeatedCompositeFieldContainer[Placed]
    def __init__(self, seat: _Optional[int] = ..., placed: _Optional[_Iterable[_Union[Placed, _Mapping]]] = ...) -> None: ...

class Discarded(_message.Message):
    __slots__ = ("seat", "card", "blocks", "frozen")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    BLOCKS_FIELD_NUMBER: _ClassVar[int]
    FROZEN_FIELD_NUMBER: _ClassVar[int]
    seat: int
    card: _cards_pb2.Card
    blocks: bool
    frozen: bool
    def __init__(self, seat: _Optional[int] = ..., card: _Optional[_Union[_cards_pb2.Card, _Mapping]] = ..., blocks: _Optional[bool] = ..., frozen: _Optional[bool] = ...) -> None: ...

class AskedPartner(_message.Message):
    __slots__ = ("seat", "partner")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PARTNER_FIELD_NUMBER: _ClassVar[int]
    seat: int
    partner: int
    def __init__(self, seat: _Optional[int] = ..., partner: _Optional[int] = ...) -> None: ...

class PartnerAnswered(_message.Message):
    __slots__ = ("seat", "asker", "yes")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ASKER_FIELD_NUMBER: _ClassVar[int]
    YES_FIELD_NUMBER: _ClassVar[int]
    seat: int
    asker: int
    yes: bool
    def __init__(self, seat: _Optional[int] = ..., asker: _Optional[int] = ..., yes: _Optional[bool] = ...) -> None: ...

class Penalty(_message.Message):
    __slots__ = ("side", "points", "reason")
    SIDE_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    side: int
    points: int
    reason: str
    def __init__(self, side: _Optional[int] = ..., points: _Optional[int] = ..., reason: _Optional[str] = ...) -> None: ...

class WentOut(_message.Message):
    __slots__ = ("seat", "placed", "discard", "concealed")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLACED_FIELD_NUMBER: _ClassVar[int]
    DISCARD_FIELD_NUMBER: _ClassVar[int]
    CONCEALED_FIELD_NUMBER: _ClassVar[int]
    seat: int
    placed: _containers.RepeatedCompositeFieldContainer[Placed]
    discard: _cards_pb2.Card
    concealed: bool
    def __init__(self, seat: _Optional[int] = ..., placed: _Optional[_Iterable[_Union[Placed, _Mapping]]] = ..., discard: _Optional[_Union[_cards_pb2.Card, _Mapping]] = ..., concealed: _Optional[bool] = ...) -> None: ...

class PileDeclined(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

class DealEnded(_message.Message):
    __slots__ = ("score", "hands")
    SCORE_FIELD_NUMBER: _ClassVar[int]
    HANDS_FIELD_NUMBER: _ClassVar[int]
    score: DealScore
    hands: _containers.RepeatedCompositeFieldContainer[HandView]
    def __init__(self, score: _Optional[_Union[DealScore, _Mapping]] = ..., hands: _Optional[_Iterable[_Union[HandView, _Mapping]]] = ...) -> None: ...

class MatchEnded(_message.Message):
    __slots__ = ("result",)
    RESULT_FIELD_NUMBER: _ClassVar[int]
    result: MatchResult
    def __init__(self, result: _Optional[_Union[MatchResult, _Mapping]] = ...) -> None: ...

class TimedOut(_message.Message):
    __slots__ = ("seat", "policy")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    POLICY_FIELD_NUMBER: _ClassVar[int]
    seat: int
    policy: TimeoutPolicy
    def __init__(self, seat: _Optional[int] = ..., policy: _Optional[_Union[TimeoutPolicy, str]] = ...) -> None: ...

class GameEvent(_message.Message):
    __slots__ = ("seq", "seat_joined", "seat_left", "game_started", "deal_started", "turn_started", "red_three_laid", "drew", "pile_taken", "melded", "discarded", "asked_partner", "partner_answered", "penalty", "went_out", "pile_declined", "deal_ended", "match_ended", "timed_out")
    SEQ_FIELD_NUMBER: _ClassVar[int]
    SEAT_JOINED_FIELD_NUMBER: _ClassVar[int]
    SEAT_LEFT_FIELD_NUMBER: _ClassVar[int]
    GAME_STARTED_FIELD_NUMBER: _ClassVar[int]
    DEAL_STARTED_FIELD_NUMBER: _ClassVar[int]
    TURN_STARTED_FIELD_NUMBER: _ClassVar[int]
    RED_THREE_LAID_FIELD_NUMBER: _ClassVar[int]
    DREW_FIELD_NUMBER: _ClassVar[int]
    PILE_TAKEN_FIELD_NUMBER: _ClassVar[int]
    MELDED_FIELD_NUMBER: _ClassVar[int]
    DISCARDED_FIELD_NUMBER: _ClassVar[int]
    ASKED_PARTNER_FIELD_NUMBER: _ClassVar[int]
    PARTNER_ANSWERED_FIELD_NUMBER: _ClassVar[int]
    PENALTY_FIELD_NUMBER: _ClassVar[int]
    WENT_OUT_FIELD_NUMBER: _ClassVar[int]
    PILE_DECLINED_FIELD_NUMBER: _ClassVar[int]
    DEAL_ENDED_FIELD_NUMBER: _ClassVar[int]
    MATCH_ENDED_FIELD_NUMBER: _ClassVar[int]
    TIMED_OUT_FIELD_NUMBER: _ClassVar[int]
    seq: int
    seat_joined: SeatJoined
    seat_left: SeatLeft
    game_started: GameStarted
    deal_started: DealStarted
    turn_started: TurnStarted
    red_three_laid: RedThreeLaid
    drew: Drew
    pile_taken: PileTaken
    melded: Melded
    discarded: Discarded
    asked_partner: AskedPartner
    partner_answered: PartnerAnswered
    penalty: Penalty
    went_out: WentOut
    pile_declined: PileDeclined
    deal_ended: DealEnded
    match_ended: MatchEnded
    timed_out: TimedOut
    def __init__(self, seq: _Optional[int] = ..., seat_joined: _Optional[_Union[SeatJoined, _Mapping]] = ..., seat_left: _Optional[_Union[SeatLeft, _Mapping]] = ..., game_started: _Optional[_Union[GameStarted, _Mapping]] = ..., deal_started: _Optional[_Union[DealStarted, _Mapping]] = ..., turn_started: _Optional[_Union[TurnStarted, _Mapping]] = ..., red_three_laid: _Optional[_Union[RedThreeLaid, _Mapping]] = ..., drew: _Optional[_Union[Drew, _Mapping]] = ..., pile_taken: _Optional[_Union[PileTaken, _Mapping]] = ..., melded: _Optional[_Union[Melded, _Mapping]] = ..., discarded: _Optional[_Union[Discarded, _Mapping]] = ..., asked_partner: _Optional[_Union[AskedPartner, _Mapping]] = ..., partner_answered: _Optional[_Union[PartnerAnswered, _Mapping]] = ..., penalty: _Optional[_Union[Penalty, _Mapping]] = ..., went_out: _Optional[_Union[WentOut, _Mapping]] = ..., pile_declined: _Optional[_Union[PileDeclined, _Mapping]] = ..., deal_ended: _Optional[_Union[DealEnded, _Mapping]] = ..., match_ended: _Optional[_Union[MatchEnded, _Mapping]] = ..., timed_out: _Optional[_Union[TimedOut, _Mapping]] = ...) -> None: ...

class CardOrder(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Card]
    def __init__(self, cards: _Optional[_Iterable[_Union[_cards_pb2.Card, _Mapping]]] = ...) -> None: ...

class RecordedAction(_message.Message):
    __slots__ = ("seat", "action")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    seat: int
    action: _actions_pb2.Action
    def __init__(self, seat: _Optional[int] = ..., action: _Optional[_Union[_actions_pb2.Action, _Mapping]] = ...) -> None: ...

class GameRecord(_message.Message):
    __slots__ = ("game_id", "rules", "seed", "card_orders", "first_dealer", "start_scores", "display_names", "actions", "result")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    CARD_ORDERS_FIELD_NUMBER: _ClassVar[int]
    FIRST_DEALER_FIELD_NUMBER: _ClassVar[int]
    START_SCORES_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAMES_FIELD_NUMBER: _ClassVar[int]
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    rules: RuleSet
    seed: int
    card_orders: _containers.RepeatedCompositeFieldContainer[CardOrder]
    first_dealer: int
    start_scores: _containers.RepeatedScalarFieldContainer[int]
    display_names: _containers.RepeatedScalarFieldContainer[str]
    actions: _containers.RepeatedCompositeFieldContainer[RecordedAction]
    result: MatchResult
    def __init__(self, game_id: _Optional[str] = ..., rules: _Optional[_Union[RuleSet, _Mapping]] = ..., seed: _Optional[int] = ..., card_orders: _Optional[_Iterable[_Union[CardOrder, _Mapping]]] = ..., first_dealer: _Optional[int] = ..., start_scores: _Optional[_Iterable[int]] = ..., display_names: _Optional[_Iterable[str]] = ..., actions: _Optional[_Iterable[_Union[RecordedAction, _Mapping]]] = ..., result: _Optional[_Union[MatchResult, _Mapping]] = ...) -> None: ...
