"""The stable reasons of the service's refusals, as an enum.

Every refusal of the server carries one (``canasta-reason`` metadata, and the ErrorInfo detail);
docs/protocol.md says when each is sent and what a client should do. The list is the protocol
crate's (``canasta_proto::reason::Reason``), in its order, written by
``python python/generate_stubs.py``; the package's tests check that this enum is that list
(``canasta._engine.reasons()``), so a reason added to the server and not here fails them. A reason from a newer server that this version does not know is kept as text
(``ServiceError.code``) with ``ServiceError.reason`` None.
"""

import enum
from typing import Optional


class Reason(str, enum.Enum):
    """Why the service refused a request; the value is the wire string (``"PILE_FROZEN"``)."""

    # --- generated from proto/src/reason.rs by python/generate_stubs.py ---
    # the request: INVALID_ARGUMENT
    MALFORMED_MESSAGE = "MALFORMED_MESSAGE"
    MISSING_FIELD = "MISSING_FIELD"
    INVALID_ENUM = "INVALID_ENUM"
    INVALID_CARD = "INVALID_CARD"
    TOO_MANY_CARDS = "TOO_MANY_CARDS"
    INVALID_INDEX = "INVALID_INDEX"
    BAD_PLAYER_COUNT = "BAD_PLAYER_COUNT"
    UNKNOWN_OPTION = "UNKNOWN_OPTION"
    BAD_OPTION_VALUE = "BAD_OPTION_VALUE"
    OPTION_CONFLICT = "OPTION_CONFLICT"
    BAD_CARD_ORDER = "BAD_CARD_ORDER"
    BAD_FIRST_DEALER = "BAD_FIRST_DEALER"
    BAD_START_SCORES = "BAD_START_SCORES"
    INVALID_SEAT = "INVALID_SEAT"
    BAD_DISPLAY_NAME = "BAD_DISPLAY_NAME"
    BAD_TIME_CONTROL = "BAD_TIME_CONTROL"
    UNKNOWN_BOT = "UNKNOWN_BOT"
    BOT_BUDGET_TOO_HIGH = "BOT_BUDGET_TOO_HIGH"
    DUPLICATE_SEAT = "DUPLICATE_SEAT"
    BAD_REQUEST_ID = "BAD_REQUEST_ID"
    REQUEST_ID_REUSED = "REQUEST_ID_REUSED"
    BAD_PAGE_TOKEN = "BAD_PAGE_TOKEN"
    BAD_SEQ = "BAD_SEQ"
    PLAY_ALREADY_OPEN = "PLAY_ALREADY_OPEN"
    WRONG_GAME = "WRONG_GAME"

    # the game's state: FAILED_PRECONDITION, ABORTED
    GAME_NOT_STARTED = "GAME_NOT_STARTED"
    GAME_FINISHED = "GAME_FINISHED"
    GAME_NOT_FINISHED = "GAME_NOT_FINISHED"
    SEAT_TAKEN = "SEAT_TAKEN"
    GAME_FULL = "GAME_FULL"
    GAME_STARTED = "GAME_STARTED"
    STALE_SEQ = "STALE_SEQ"

    # who asks: NOT_FOUND, UNAUTHENTICATED, PERMISSION_DENIED
    GAME_NOT_FOUND = "GAME_NOT_FOUND"
    MISSING_TOKEN = "MISSING_TOKEN"
    MALFORMED_TOKEN = "MALFORMED_TOKEN"
    NOT_A_SEAT_OF_GAME = "NOT_A_SEAT_OF_GAME"
    NOT_GAME_CREATOR = "NOT_GAME_CREATOR"
    PLAY_NOT_OPENED = "PLAY_NOT_OPENED"

    # the server's limits: RESOURCE_EXHAUSTED (with RetryInfo and canasta-retry-after-ms)
    TOO_MANY_GAMES = "TOO_MANY_GAMES"
    TOO_MANY_WATCHERS = "TOO_MANY_WATCHERS"
    MESSAGE_TOO_LARGE = "MESSAGE_TOO_LARGE"
    RATE_LIMITED = "RATE_LIMITED"

    # the server: UNAVAILABLE, DATA_LOSS
    STORAGE_FAILED = "STORAGE_FAILED"
    SHUTTING_DOWN = "SHUTTING_DOWN"
    BAD_LOG = "BAD_LOG"

    # the lobby (LobbyService)
    RATED_HOUSE_RULES = "RATED_HOUSE_RULES"
    RATED_SEED = "RATED_SEED"
    BAD_PARTNER = "BAD_PARTNER"
    BAD_SEATS = "BAD_SEATS"
    BAD_FILL_WAIT = "BAD_FILL_WAIT"
    HOUSE_BOTS_UNAVAILABLE = "HOUSE_BOTS_UNAVAILABLE"
    NAME_TAKEN = "NAME_TAKEN"
    UNKNOWN_PLAYER_KEY = "UNKNOWN_PLAYER_KEY"
    PLAYER_NOT_FOUND = "PLAYER_NOT_FOUND"
    CHALLENGE_NOT_FOUND = "CHALLENGE_NOT_FOUND"
    NOT_INVITED = "NOT_INVITED"
    CHALLENGE_CLOSED = "CHALLENGE_CLOSED"
    EVENTS_DROPPED = "EVENTS_DROPPED"
    TOO_MANY_SEEKS = "TOO_MANY_SEEKS"
    TOO_MANY_PLAYER_GAMES = "TOO_MANY_PLAYER_GAMES"

    # the rules: FAILED_PRECONDITION, from the engine's RuleError
    MATCH_OVER = "MATCH_OVER"
    NO_SUCH_SEAT = "NO_SUCH_SEAT"
    NOT_YOUR_TURN = "NOT_YOUR_TURN"
    WRONG_PHASE = "WRONG_PHASE"
    STOCK_EMPTY = "STOCK_EMPTY"
    STOCK_NOT_EMPTY = "STOCK_NOT_EMPTY"
    MUST_TAKE_PILE = "MUST_TAKE_PILE"
    PILE_EMPTY = "PILE_EMPTY"
    PILE_BLOCKED = "PILE_BLOCKED"
    PILE_FROZEN = "PILE_FROZEN"
    TOP_CARD_NOT_MELDED = "TOP_CARD_NOT_MELDED"
    ONE_CARD_PILE = "ONE_CARD_PILE"
    CARD_NOT_HELD = "CARD_NOT_HELD"
    EMPTY_MELD = "EMPTY_MELD"
    MELD_TOO_SMALL = "MELD_TOO_SMALL"
    TOO_FEW_NATURALS = "TOO_FEW_NATURALS"
    TOO_MANY_WILDS = "TOO_MANY_WILDS"
    WILD_RATIO = "WILD_RATIO"
    MIXED_RANKS = "MIXED_RANKS"
    WRONG_RANK = "WRONG_RANK"
    RED_THREE = "RED_THREE"
    BLACK_THREES_ONLY_GOING_OUT = "BLACK_THREES_ONLY_GOING_OUT"
    BAD_BLACK_THREE_MELD = "BAD_BLACK_THREE_MELD"
    WILD_ONLY_MELD = "WILD_ONLY_MELD"
    RANK_ALREADY_MELDED = "RANK_ALREADY_MELDED"
    DUPLICATE_MELD = "DUPLICATE_MELD"
    NO_SUCH_MELD = "NO_SUCH_MELD"
    CANASTA_CLOSED = "CANASTA_CLOSED"
    BELOW_MINIMUM = "BELOW_MINIMUM"
    MUST_KEEP_CARD = "MUST_KEEP_CARD"
    CARDS_LEFT = "CARDS_LEFT"
    NOT_ENOUGH_CANASTAS = "NOT_ENOUGH_CANASTAS"
    NEED_NATURAL_CANASTA = "NEED_NATURAL_CANASTA"
    PARTNER_SAID_NO = "PARTNER_SAID_NO"
    NO_PARTNER = "NO_PARTNER"
    ALREADY_ASKED = "ALREADY_ASKED"
    ASK_TOO_LATE = "ASK_TOO_LATE"
    DISCARD_LAST_CARD = "DISCARD_LAST_CARD"
    NOT_A_SEQUENCE = "NOT_A_SEQUENCE"
    NOT_WILD = "NOT_WILD"
    NO_WILD_ON_CANASTA = "NO_WILD_ON_CANASTA"
    PILE_TAKE_FORBIDDEN = "PILE_TAKE_FORBIDDEN"
    NO_MELD_AFTER_TAKE = "NO_MELD_AFTER_TAKE"
    GO_OUT_NEEDS_DISCARD = "GO_OUT_NEEDS_DISCARD"
    # --- end of the generated part ---

    @classmethod
    def parse(cls, text: str) -> Optional["Reason"]:
        """The reason ``text`` names, or None for a string that is no reason of this version."""
        try:
            return cls(text)
        except ValueError:
            return None
