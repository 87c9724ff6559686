from canasta.v1 import actions_pb2 as _actions_pb2
from canasta.v1 import game_pb2 as _game_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class CreateGameRequest(_message.Message):
    __slots__ = ("rules", "seed", "card_orders", "first_dealer", "start_scores", "time_control", "bots")
    RULES_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    CARD_ORDERS_FIELD_NUMBER: _ClassVar[int]
    FIRST_DEALER_FIELD_NUMBER: _ClassVar[int]
    START_SCORES_FIELD_NUMBER: _ClassVar[int]
    TIME_CONTROL_FIELD_NUMBER: _ClassVar[int]
    BOTS_FIELD_NUMBER: _ClassVar[int]
    rules: _game_pb2.RuleSet
    seed: int
    card_orders: _containers.RepeatedCompositeFieldContainer[_game_pb2.CardOrder]
    first_dealer: int
    start_scores: _containers.RepeatedScalarFieldContainer[int]
    time_control: _game_pb2.TimeControl
    bots: _containers.RepeatedCompositeFieldContainer[SeatBot]
    def __init__(self, rules: _Optional[_Union[_game_pb2.RuleSet, _Mapping]] = ..., seed: _Optional[int] = ..., card_orders: _Optional[_Iterable[_Union[_game_pb2.CardOrder, _Mapping]]] = ..., first_dealer: _Optional[int] = ..., start_scores: _Optional[_Iterable[int]] = ..., time_control: _Optional[_Union[_game_pb2.TimeControl, _Mapping]] = ..., bots: _Optional[_Iterable[_Union[SeatBot, _Mapping]]] = ...) -> None: ...

class SeatBot(_message.Message):
    __slots__ = ("seat", "bot")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    bot: str
    def __init__(self, seat: _Optional[int] = ..., bot: _Optional[str] = ...) -> None: ...

class CreateGameResponse(_message.Message):
    __slots__ = ("game", "creator_token")
    GAME_FIELD_NUMBER: _ClassVar[int]
    CREATOR_TOKEN_FIELD_NUMBER: _ClassVar[int]
    game: _game_pb2.GameSummary
    creator_token: str
    def __init__(self, game: _Optional[_Union[_game_pb2.GameSummary, _Mapping]] = ..., creator_token: _Optional[str] = ...) -> None: ...

class ListGamesRequest(_message.Message):
    __slots__ = ("page_size", "page_token", "status")
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    status: _game_pb2.GameStatus
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., status: _Optional[_Union[_game_pb2.GameStatus, str]] = ...) -> None: ...

class ListGamesResponse(_message.Message):
    __slots__ = ("games", "next_page_token")
    GAMES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    games: _containers.RepeatedCompositeFieldContainer[_game_pb2.GameSummary]
    next_page_token: str
    def __init__(self, games: _Optional[_Iterable[_Union[_game_pb2.GameSummary, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class GetGameRequest(_message.Message):
    __slots__ = ("game_id",)
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    def __init__(self, game_id: _Optional[str] = ...) -> None: ...

class GetGameResponse(_message.Message):
    __slots__ = ("game",)
    GAME_FIELD_NUMBER: _ClassVar[int]
    game: _game_pb2.GameSummary
    def __init__(self, game: _Optional[_Union[_game_pb2.GameSummary, _Mapping]] = ...) -> None: ...

class JoinGameRequest(_message.Message):
    __slots__ = ("game_id", "seat", "display_name")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    seat: int
    display_name: str
    def __init__(self, game_id: _Optional[str] = ..., seat: _Optional[int] = ..., display_name: _Optional[str] = ...) -> None: ...

class JoinGameResponse(_message.Message):
    __slots__ = ("seat", "token", "game")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    seat: int
    token: str
    game: _game_pb2.GameSummary
    def __init__(self, seat: _Optional[int] = ..., token: _Optional[str] = ..., game: _Optional[_Union[_game_pb2.GameSummary, _Mapping]] = ...) -> None: ...

class LeaveGameRequest(_message.Message):
    __slots__ = ("game_id",)
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    def __init__(self, game_id: _Optional[str] = ...) -> None: ...

class LeaveGameResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetViewRequest(_message.Message):
    __slots__ = ("game_id", "include_actions")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    include_actions: bool
    def __init__(self, game_id: _Optional[str] = ..., include_actions: _Optional[bool] = ...) -> None: ...

class GetViewResponse(_message.Message):
    __slots__ = ("view", "legal", "time_left_ms")
    VIEW_FIELD_NUMBER: _ClassVar[int]
    LEGAL_FIELD_NUMBER: _ClassVar[int]
    TIME_LEFT_MS_FIELD_NUMBER: _ClassVar[int]
    view: _game_pb2.GameView
    legal: _game_pb2.LegalChoices
    time_left_ms: int
    def __init__(self, view: _Optional[_Union[_game_pb2.GameView, _Mapping]] = ..., legal: _Optional[_Union[_game_pb2.LegalChoices, _Mapping]] = ..., time_left_ms: _Optional[int] = ...) -> None: ...

class SubmitActionRequest(_message.Message):
    __slots__ = ("game_id", "expected_seq", "request_id", "action")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_SEQ_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    expected_seq: int
    request_id: str
    action: _actions_pb2.Action
    def __init__(self, game_id: _Optional[str] = ..., expected_seq: _Optional[int] = ..., request_id: _Optional[str] = ..., action: _Optional[_Union[_actions_pb2.Action, _Mapping]] = ...) -> None: ...

class SubmitActionResponse(_message.Message):
    __slots__ = ("seq", "events")
    SEQ_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    seq: int
    events: _containers.RepeatedCompositeFieldContainer[_game_pb2.GameEvent]
    def __init__(self, seq: _Optional[int] = ..., events: _Optional[_Iterable[_Union[_game_pb2.GameEvent, _Mapping]]] = ...) -> None: ...

class CheckActionRequest(_message.Message):
    __slots__ = ("game_id", "action")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    action: _actions_pb2.Action
    def __init__(self, game_id: _Optional[str] = ..., action: _Optional[_Union[_actions_pb2.Action, _Mapping]] = ...) -> None: ...

class CheckActionResponse(_message.Message):
    __slots__ = ("legal", "reason", "message")
    LEGAL_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    legal: bool
    reason: str
    message: str
    def __init__(self, legal: _Optional[bool] = ..., reason: _Optional[str] = ..., message: _Optional[str] = ...) -> None: ...

class WatchGameRequest(_message.Message):
    __slots__ = ("game_id", "after_seq", "include_actions", "include_view")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    AFTER_SEQ_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_VIEW_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    after_seq: int
    include_actions: bool
    include_view: bool
    def __init__(self, game_id: _Optional[str] = ..., after_seq: _Optional[int] = ..., include_actions: _Optional[bool] = ..., include_view: _Optional[bool] = ...) -> None: ...

class Heartbeat(_message.Message):
    __slots__ = ("seq",)
    SEQ_FIELD_NUMBER: _ClassVar[int]
    seq: int
    def __init__(self, seq: _Optional[int] = ...) -> None: ...

class Lagged(_message.Message):
    __slots__ = ("last_seq",)
    LAST_SEQ_FIELD_NUMBER: _ClassVar[int]
    last_seq: int
    def __init__(self, last_seq: _Optional[int] = ...) -> None: ...

class PlayRequest(_message.Message):
    __slots__ = ("watch", "submit")
    WATCH_FIELD_NUMBER: _ClassVar[int]
    SUBMIT_FIELD_NUMBER: _ClassVar[int]
    watch: WatchGameRequest
    submit: SubmitActionRequest
    def __init__(self, watch: _Optional[_Union[WatchGameRequest, _Mapping]] = ..., submit: _Optional[_Union[SubmitActionRequest, _Mapping]] = ...) -> None: ...

class PlayResponse(_message.Message):
    __slots__ = ("update", "result")
    UPDATE_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    update: WatchGameResponse
    result: PlayResult
    def __init__(self, update: _Optional[_Union[WatchGameResponse, _Mapping]] = ..., result: _Optional[_Union[PlayResult, _Mapping]] = ...) -> None: ...

class PlayResult(_message.Message):
    __slots__ = ("request_id", "seq", "error")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    seq: int
    error: PlayError
    def __init__(self, request_id: _Optional[str] = ..., seq: _Optional[int] = ..., error: _Optional[_Union[PlayError, _Mapping]] = ...) -> None: ...

class PlayError(_message.Message):
    __slots__ = ("code", "message", "reason", "field", "retry_after_ms", "metadata")
    class MetadataEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    FIELD_FIELD_NUMBER: _ClassVar[int]
    RETRY_AFTER_MS_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    code: int
    message: str
    reason: str
    field: str
    retry_after_ms: int
    metadata: _containers.ScalarMap[str, str]
    def __init__(self, code: _Optional[int] = ..., message: _Optional[str] = ..., reason: _Optional[str] = ..., field: _Optional[str] = ..., retry_after_ms: _Optional[int] = ..., metadata: _Optional[_Mapping[str, str]] = ...) -> None: ...

class WatchGameResponse(_message.Message):
    __slots__ = ("event", "prompt", "heartbeat", "lagged")
    EVENT_FIELD_NUMBER: _ClassVar[int]
    PROMPT_FIELD_NUMBER: _ClassVar[int]
    HEARTBEAT_FIELD_NUMBER: _ClassVar[int]
    LAGGED_FIELD_NUMBER: _ClassVar[int]
    event: _game_pb2.GameEvent
    prompt: _game_pb2.Prompt
    heartbeat: Heartbeat
    lagged: Lagged
    def __init__(self, event: _Optional[_Union[_game_pb2.GameEvent, _Mapping]] = ..., prompt: _Optional[_Union[_game_pb2.Prompt, _Mapping]] = ..., heartbeat: _Optional[_Union[Heartbeat, _Mapping]] = ..., lagged: _Optional[_Union[Lagged, _Mapping]] = ...) -> None: ...

class GetScoresRequest(_message.Message):
    __slots__ = ("game_id",)
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    def __init__(self, game_id: _Optional[str] = ...) -> None: ...

class GetScoresResponse(_message.Message):
    __slots__ = ("deals", "result")
    DEALS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    deals: _containers.RepeatedCompositeFieldContainer[_game_pb2.DealScore]
    result: _game_pb2.MatchResult
    def __init__(self, deals: _Optional[_Iterable[_Union[_game_pb2.DealScore, _Mapping]]] = ..., result: _Optional[_Union[_game_pb2.MatchResult, _Mapping]] = ...) -> None: ...

class GetReplayStepRequest(_message.Message):
    __slots__ = ("game_id", "step")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    STEP_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    step: int
    def __init__(self, game_id: _Optional[str] = ..., step: _Optional[int] = ...) -> None: ...

class GetReplayStepResponse(_message.Message):
    __slots__ = ("step", "steps", "deal_steps", "view", "action", "events")
    STEP_FIELD_NUMBER: _ClassVar[int]
    STEPS_FIELD_NUMBER: _ClassVar[int]
    DEAL_STEPS_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    step: int
    steps: int
    deal_steps: _containers.RepeatedScalarFieldContainer[int]
    view: _game_pb2.GameView
    action: _game_pb2.RecordedAction
    events: _containers.RepeatedCompositeFieldContainer[_game_pb2.GameEvent]
    def __init__(self, step: _Optional[int] = ..., steps: _Optional[int] = ..., deal_steps: _Optional[_Iterable[int]] = ..., view: _Optional[_Union[_game_pb2.GameView, _Mapping]] = ..., action: _Optional[_Union[_game_pb2.RecordedAction, _Mapping]] = ..., events: _Optional[_Iterable[_Union[_game_pb2.GameEvent, _Mapping]]] = ...) -> None: ...

class ExportGameRequest(_message.Message):
    __slots__ = ("game_id",)
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    def __init__(self, game_id: _Optional[str] = ...) -> None: ...

class ExportGameResponse(_message.Message):
    __slots__ = ("record",)
    RECORD_FIELD_NUMBER: _ClassVar[int]
    record: _game_pb2.GameRecord
    def __init__(self, record: _Optional[_Union[_game_pb2.GameRecord, _Mapping]] = ...) -> None: ...

class CancelGameRequest(_message.Message):
    __slots__ = ("game_id",)
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    def __init__(self, game_id: _Optional[str] = ...) -> None: ...

class CancelGameResponse(_message.Message):
    __slots__ = ("game",)
    GAME_FIELD_NUMBER: _ClassVar[int]
    game: _game_pb2.GameSummary
    def __init__(self, game: _Optional[_Union[_game_pb2.GameSummary, _Mapping]] = ...) -> None: ...

class DescribeRulesRequest(_message.Message):
    __slots__ = ("rules",)
    RULES_FIELD_NUMBER: _ClassVar[int]
    rules: _game_pb2.RuleSet
    def __init__(self, rules: _Optional[_Union[_game_pb2.RuleSet, _Mapping]] = ...) -> None: ...

class DescribeRulesResponse(_message.Message):
    __slots__ = ("preset", "player_count", "options", "pack_size")
    PRESET_FIELD_NUMBER: _ClassVar[int]
    PLAYER_COUNT_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    PACK_SIZE_FIELD_NUMBER: _ClassVar[int]
    preset: _game_pb2.Preset
    player_count: int
    options: _containers.RepeatedCompositeFieldContainer[_game_pb2.RuleOption]
    pack_size: int
    def __init__(self, preset: _Optional[_Union[_game_pb2.Preset, str]] = ..., player_count: _Optional[int] = ..., options: _Optional[_Iterable[_Union[_game_pb2.RuleOption, _Mapping]]] = ..., pack_size: _Optional[int] = ...) -> None: ...
