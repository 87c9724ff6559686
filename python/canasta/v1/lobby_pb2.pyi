from canasta.v1 import game_pb2 as _game_pb2
from canasta.v1 import service_pb2 as _service_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ChallengeStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CHALLENGE_STATUS_UNSPECIFIED: _ClassVar[ChallengeStatus]
    CHALLENGE_STATUS_PENDING: _ClassVar[ChallengeStatus]
    CHALLENGE_STATUS_STARTED: _ClassVar[ChallengeStatus]
    CHALLENGE_STATUS_DECLINED: _ClassVar[ChallengeStatus]
    CHALLENGE_STATUS_EXPIRED: _ClassVar[ChallengeStatus]
    CHALLENGE_STATUS_CANCELLED: _ClassVar[ChallengeStatus]

class ChallengeAnswer(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CHALLENGE_ANSWER_UNSPECIFIED: _ClassVar[ChallengeAnswer]
    CHALLENGE_ANSWER_PENDING: _ClassVar[ChallengeAnswer]
    CHALLENGE_ANSWER_ACCEPTED: _ClassVar[ChallengeAnswer]
    CHALLENGE_ANSWER_DECLINED: _ClassVar[ChallengeAnswer]
CHALLENGE_STATUS_UNSPECIFIED: ChallengeStatus
CHALLENGE_STATUS_PENDING: ChallengeStatus
CHALLENGE_STATUS_STARTED: ChallengeStatus
CHALLENGE_STATUS_DECLINED: ChallengeStatus
CHALLENGE_STATUS_EXPIRED: ChallengeStatus
CHALLENGE_STATUS_CANCELLED: ChallengeStatus
CHALLENGE_ANSWER_UNSPECIFIED: ChallengeAnswer
CHALLENGE_ANSWER_PENDING: ChallengeAnswer
CHALLENGE_ANSWER_ACCEPTED: ChallengeAnswer
CHALLENGE_ANSWER_DECLINED: ChallengeAnswer

class RegisterPlayerRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class RegisterPlayerResponse(_message.Message):
    __slots__ = ("player", "key")
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    player: PlayerSummary
    key: str
    def __init__(self, player: _Optional[_Union[PlayerSummary, _Mapping]] = ..., key: _Optional[str] = ...) -> None: ...

class RatingFamily(_message.Message):
    __slots__ = ("preset", "player_count")
    PRESET_FIELD_NUMBER: _ClassVar[int]
    PLAYER_COUNT_FIELD_NUMBER: _ClassVar[int]
    preset: _game_pb2.Preset
    player_count: int
    def __init__(self, preset: _Optional[_Union[_game_pb2.Preset, str]] = ..., player_count: _Optional[int] = ...) -> None: ...

class Rating(_message.Message):
    __slots__ = ("family", "mu", "sigma", "display", "games", "wins")
    FAMILY_FIELD_NUMBER: _ClassVar[int]
    MU_FIELD_NUMBER: _ClassVar[int]
    SIGMA_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    WINS_FIELD_NUMBER: _ClassVar[int]
    family: RatingFamily
    mu: float
    sigma: float
    display: float
    games: int
    wins: int
    def __init__(self, family: _Optional[_Union[RatingFamily, _Mapping]] = ..., mu: _Optional[float] = ..., sigma: _Optional[float] = ..., display: _Optional[float] = ..., games: _Optional[int] = ..., wins: _Optional[int] = ...) -> None: ...

class RatingChange(_message.Message):
    __slots__ = ("before", "after")
    BEFORE_FIELD_NUMBER: _ClassVar[int]
    AFTER_FIELD_NUMBER: _ClassVar[int]
    before: Rating
    after: Rating
    def __init__(self, before: _Optional[_Union[Rating, _Mapping]] = ..., after: _Optional[_Union[Rating, _Mapping]] = ...) -> None: ...

class PlayerSummary(_message.Message):
    __slots__ = ("name", "house", "created_unix_ms")
    NAME_FIELD_NUMBER: _ClassVar[int]
    HOUSE_FIELD_NUMBER: _ClassVar[int]
    CREATED_UNIX_MS_FIELD_NUMBER: _ClassVar[int]
    name: str
    house: bool
    created_unix_ms: int
    def __init__(self, name: _Optional[str] = ..., house: _Optional[bool] = ..., created_unix_ms: _Optional[int] = ...) -> None: ...

class SeekRequest(_message.Message):
    __slots__ = ("rules", "time_control", "partner", "rated", "fill_with_bots_after_ms")
    RULES_FIELD_NUMBER: _ClassVar[int]
    TIME_CONTROL_FIELD_NUMBER: _ClassVar[int]
    PARTNER_FIELD_NUMBER: _ClassVar[int]
    RATED_FIELD_NUMBER: _ClassVar[int]
    FILL_WITH_BOTS_AFTER_MS_FIELD_NUMBER: _ClassVar[int]
    rules: _game_pb2.RuleSet
    time_control: _game_pb2.TimeControl
    partner: str
    rated: bool
    fill_with_bots_after_ms: int
    def __init__(self, rules: _Optional[_Union[_game_pb2.RuleSet, _Mapping]] = ..., time_control: _Optional[_Union[_game_pb2.TimeControl, _Mapping]] = ..., partner: _Optional[str] = ..., rated: _Optional[bool] = ..., fill_with_bots_after_ms: _Optional[int] = ...) -> None: ...

class SeekResponse(_message.Message):
    __slots__ = ("waiting", "seated")
    WAITING_FIELD_NUMBER: _ClassVar[int]
    SEATED_FIELD_NUMBER: _ClassVar[int]
    waiting: SeekWaiting
    seated: SeekSeated
    def __init__(self, waiting: _Optional[_Union[SeekWaiting, _Mapping]] = ..., seated: _Optional[_Union[SeekSeated, _Mapping]] = ...) -> None: ...

class SeekWaiting(_message.Message):
    __slots__ = ("seek_id", "waiting", "needed")
    SEEK_ID_FIELD_NUMBER: _ClassVar[int]
    WAITING_FIELD_NUMBER: _ClassVar[int]
    NEEDED_FIELD_NUMBER: _ClassVar[int]
    seek_id: str
    waiting: int
    needed: int
    def __init__(self, seek_id: _Optional[str] = ..., waiting: _Optional[int] = ..., needed: _Optional[int] = ...) -> None: ...

class SeekSeated(_message.Message):
    __slots__ = ("seek_id", "game_id", "seat", "token", "game", "rated")
    SEEK_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    RATED_FIELD_NUMBER: _ClassVar[int]
    seek_id: str
    game_id: str
    seat: int
    token: str
    game: _game_pb2.GameSummary
    rated: bool
    def __init__(self, seek_id: _Optional[str] = ..., game_id: _Optional[str] = ..., seat: _Optional[int] = ..., token: _Optional[str] = ..., game: _Optional[_Union[_game_pb2.GameSummary, _Mapping]] = ..., rated: _Optional[bool] = ...) -> None: ...

class CreateChallengeRequest(_message.Message):
    __slots__ = ("rules", "time_control", "seats", "rated", "seed")
    RULES_FIELD_NUMBER: _ClassVar[int]
    TIME_CONTROL_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    RATED_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    rules: _game_pb2.RuleSet
    time_control: _game_pb2.TimeControl
    seats: _containers.RepeatedScalarFieldContainer[str]
    rated: bool
    seed: int
    def __init__(self, rules: _Optional[_Union[_game_pb2.RuleSet, _Mapping]] = ..., time_control: _Optional[_Union[_game_pb2.TimeControl, _Mapping]] = ..., seats: _Optional[_Iterable[str]] = ..., rated: _Optional[bool] = ..., seed: _Optional[int] = ...) -> None: ...

class CreateChallengeResponse(_message.Message):
    __slots__ = ("challenge",)
    CHALLENGE_FIELD_NUMBER: _ClassVar[int]
    challenge: Challenge
    def __init__(self, challenge: _Optional[_Union[Challenge, _Mapping]] = ...) -> None: ...

class ChallengeSeat(_message.Message):
    __slots__ = ("player", "answer")
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    ANSWER_FIELD_NUMBER: _ClassVar[int]
    player: str
    answer: ChallengeAnswer
    def __init__(self, player: _Optional[str] = ..., answer: _Optional[_Union[ChallengeAnswer, str]] = ...) -> None: ...

class Challenge(_message.Message):
    __slots__ = ("challenge_id", "challenger", "rules", "time_control", "rated", "seats", "status", "game_id", "expires_unix_ms", "note", "seeded")
    CHALLENGE_ID_FIELD_NUMBER: _ClassVar[int]
    CHALLENGER_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    TIME_CONTROL_FIELD_NUMBER: _ClassVar[int]
    RATED_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_UNIX_MS_FIELD_NUMBER: _ClassVar[int]
    NOTE_FIELD_NUMBER: _ClassVar[int]
    SEEDED_FIELD_NUMBER: _ClassVar[int]
    challenge_id: str
    challenger: str
    rules: _game_pb2.RuleSet
    time_control: _game_pb2.TimeControl
    rated: bool
    seats: _containers.RepeatedCompositeFieldContainer[ChallengeSeat]
    status: ChallengeStatus
    game_id: str
    expires_unix_ms: int
    note: str
    seeded: bool
    def __init__(self, challenge_id: _Optional[str] = ..., challenger: _Optional[str] = ..., rules: _Optional[_Union[_game_pb2.RuleSet, _Mapping]] = ..., time_control: _Optional[_Union[_game_pb2.TimeControl, _Mapping]] = ..., rated: _Optional[bool] = ..., seats: _Optional[_Iterable[_Union[ChallengeSeat, _Mapping]]] = ..., status: _Optional[_Union[ChallengeStatus, str]] = ..., game_id: _Optional[str] = ..., expires_unix_ms: _Optional[int] = ..., note: _Optional[str] = ..., seeded: _Optional[bool] = ...) -> None: ...

class AnswerChallengeRequest(_message.Message):
    __slots__ = ("challenge_id", "accept")
    CHALLENGE_ID_FIELD_NUMBER: _ClassVar[int]
    ACCEPT_FIELD_NUMBER: _ClassVar[int]
    challenge_id: str
    accept: bool
    def __init__(self, challenge_id: _Optional[str] = ..., accept: _Optional[bool] = ...) -> None: ...

class AnswerChallengeResponse(_message.Message):
    __slots__ = ("challenge",)
    CHALLENGE_FIELD_NUMBER: _ClassVar[int]
    challenge: Challenge
    def __init__(self, challenge: _Optional[_Union[Challenge, _Mapping]] = ...) -> None: ...

class CancelChallengeRequest(_message.Message):
    __slots__ = ("challenge_id",)
    CHALLENGE_ID_FIELD_NUMBER: _ClassVar[int]
    challenge_id: str
    def __init__(self, challenge_id: _Optional[str] = ...) -> None: ...

class CancelChallengeResponse(_message.Message):
    __slots__ = ("challenge",)
    CHALLENGE_FIELD_NUMBER: _ClassVar[int]
    challenge: Challenge
    def __init__(self, challenge: _Optional[_Union[Challenge, _Mapping]] = ...) -> None: ...

class WatchPlayerRequest(_message.Message):
    __slots__ = ("after_seq",)
    AFTER_SEQ_FIELD_NUMBER: _ClassVar[int]
    after_seq: int
    def __init__(self, after_seq: _Optional[int] = ...) -> None: ...

class WatchPlayerResponse(_message.Message):
    __slots__ = ("event", "heartbeat", "lagged")
    EVENT_FIELD_NUMBER: _ClassVar[int]
    HEARTBEAT_FIELD_NUMBER: _ClassVar[int]
    LAGGED_FIELD_NUMBER: _ClassVar[int]
    event: PlayerEvent
    heartbeat: _service_pb2.Heartbeat
    lagged: _service_pb2.Lagged
    def __init__(self, event: _Optional[_Union[PlayerEvent, _Mapping]] = ..., heartbeat: _Optional[_Union[_service_pb2.Heartbeat, _Mapping]] = ..., lagged: _Optional[_Union[_service_pb2.Lagged, _Mapping]] = ...) -> None: ...

class PlayerEvent(_message.Message):
    __slots__ = ("seq", "unix_ms", "game_started", "game_finished", "challenge")
    SEQ_FIELD_NUMBER: _ClassVar[int]
    UNIX_MS_FIELD_NUMBER: _ClassVar[int]
    GAME_STARTED_FIELD_NUMBER: _ClassVar[int]
    GAME_FINISHED_FIELD_NUMBER: _ClassVar[int]
    CHALLENGE_FIELD_NUMBER: _ClassVar[int]
    seq: int
    unix_ms: int
    game_started: PlayerGameStarted
    game_finished: PlayerGameFinished
    challenge: Challenge
    def __init__(self, seq: _Optional[int] = ..., unix_ms: _Optional[int] = ..., game_started: _Optional[_Union[PlayerGameStarted, _Mapping]] = ..., game_finished: _Optional[_Union[PlayerGameFinished, _Mapping]] = ..., challenge: _Optional[_Union[Challenge, _Mapping]] = ...) -> None: ...

class PlayerGameStarted(_message.Message):
    __slots__ = ("game_id", "seat", "token", "players", "rated", "seek_id", "challenge_id", "rules")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    RATED_FIELD_NUMBER: _ClassVar[int]
    SEEK_ID_FIELD_NUMBER: _ClassVar[int]
    CHALLENGE_ID_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    seat: int
    token: str
    players: _containers.RepeatedScalarFieldContainer[str]
    rated: bool
    seek_id: str
    challenge_id: str
    rules: _game_pb2.RuleSet
    def __init__(self, game_id: _Optional[str] = ..., seat: _Optional[int] = ..., token: _Optional[str] = ..., players: _Optional[_Iterable[str]] = ..., rated: _Optional[bool] = ..., seek_id: _Optional[str] = ..., challenge_id: _Optional[str] = ..., rules: _Optional[_Union[_game_pb2.RuleSet, _Mapping]] = ...) -> None: ...

class PlayerGameFinished(_message.Message):
    __slots__ = ("game_id", "seat", "result", "won", "rating")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    WON_FIELD_NUMBER: _ClassVar[int]
    RATING_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    seat: int
    result: _game_pb2.MatchResult
    won: bool
    rating: RatingChange
    def __init__(self, game_id: _Optional[str] = ..., seat: _Optional[int] = ..., result: _Optional[_Union[_game_pb2.MatchResult, _Mapping]] = ..., won: _Optional[bool] = ..., rating: _Optional[_Union[RatingChange, _Mapping]] = ...) -> None: ...

class GetPlayerRequest(_message.Message):
    __slots__ = ("name", "recent_games")
    NAME_FIELD_NUMBER: _ClassVar[int]
    RECENT_GAMES_FIELD_NUMBER: _ClassVar[int]
    name: str
    recent_games: int
    def __init__(self, name: _Optional[str] = ..., recent_games: _Optional[int] = ...) -> None: ...

class GetPlayerResponse(_message.Message):
    __slots__ = ("player", "ratings", "games", "wins", "recent_games")
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    RATINGS_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    WINS_FIELD_NUMBER: _ClassVar[int]
    RECENT_GAMES_FIELD_NUMBER: _ClassVar[int]
    player: PlayerSummary
    ratings: _containers.RepeatedCompositeFieldContainer[Rating]
    games: int
    wins: int
    recent_games: _containers.RepeatedCompositeFieldContainer[PlayedGame]
    def __init__(self, player: _Optional[_Union[PlayerSummary, _Mapping]] = ..., ratings: _Optional[_Iterable[_Union[Rating, _Mapping]]] = ..., games: _Optional[int] = ..., wins: _Optional[int] = ..., recent_games: _Optional[_Iterable[_Union[PlayedGame, _Mapping]]] = ...) -> None: ...

class PlayedGame(_message.Message):
    __slots__ = ("game_id", "rules", "seat", "players", "result", "won", "rating", "finished_unix_ms")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    WON_FIELD_NUMBER: _ClassVar[int]
    RATING_FIELD_NUMBER: _ClassVar[int]
    FINISHED_UNIX_MS_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    rules: _game_pb2.RuleSet
    seat: int
    players: _containers.RepeatedScalarFieldContainer[str]
    result: _game_pb2.MatchResult
    won: bool
    rating: RatingChange
    finished_unix_ms: int
    def __init__(self, game_id: _Optional[str] = ..., rules: _Optional[_Union[_game_pb2.RuleSet, _Mapping]] = ..., seat: _Optional[int] = ..., players: _Optional[_Iterable[str]] = ..., result: _Optional[_Union[_game_pb2.MatchResult, _Mapping]] = ..., won: _Optional[bool] = ..., rating: _Optional[_Union[RatingChange, _Mapping]] = ..., finished_unix_ms: _Optional[int] = ...) -> None: ...

class GetLeaderboardRequest(_message.Message):
    __slots__ = ("family", "page_size", "page_token")
    FAMILY_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    family: RatingFamily
    page_size: int
    page_token: str
    def __init__(self, family: _Optional[_Union[RatingFamily, _Mapping]] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class LeaderboardEntry(_message.Message):
    __slots__ = ("rank", "player", "rating")
    RANK_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    RATING_FIELD_NUMBER: _ClassVar[int]
    rank: int
    player: PlayerSummary
    rating: Rating
    def __init__(self, rank: _Optional[int] = ..., player: _Optional[_Union[PlayerSummary, _Mapping]] = ..., rating: _Optional[_Union[Rating, _Mapping]] = ...) -> None: ...

class GetLeaderboardResponse(_message.Message):
    __slots__ = ("entries", "next_page_token")
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    entries: _containers.RepeatedCompositeFieldContainer[LeaderboardEntry]
    next_page_token: str
    def __init__(self, entries: _Optional[_Iterable[_Union[LeaderboardEntry, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...
