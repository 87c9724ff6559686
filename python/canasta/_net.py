"""What the blocking client (:mod:`canasta.client`) and the asyncio one (:mod:`canasta.aio`)
share: the channel they open (address, TLS, options) and its stubs, the requests they build,
how they read the server's refusals, the games as listed, and the Play stream's state (the seq,
the action in flight, resuming), which does no I/O itself.

Needs the ``client`` extra (``pip install './python[client]'``): grpcio and protobuf.
"""

from __future__ import annotations

import dataclasses
import os
import uuid
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import grpc

from . import _engine
from .errors import ServiceError
from .reasons import Reason
from .v1 import actions_pb2, game_pb2, lobby_pb2, lobby_pb2_grpc, service_pb2, service_pb2_grpc

#: The address of a server started with its defaults.
DEFAULT_ADDRESS = "127.0.0.1:50051"

#: Failures of the connection or of the server, not of the request: a stream is opened again,
#: a read-only call is made again.
TRANSIENT = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)

_STATUSES = {"waiting": 1, "playing": 2, "finished": 3}
_STATUS_NAMES = {v: k for k, v in _STATUSES.items()}
_POLICIES = {"fallback_move": 1, "forfeit": 2}
_END_NAMES = {1: "target", 2: "forfeit", 3: "abandoned", 4: "expired", 5: "cancelled"}


# --- The connection ---------------------------------------------------------------------------


def open_channel(
    channels,
    address: str,
    *,
    tls: bool,
    root_certificates: Optional[bytes],
    server_name: Optional[str],
    options: Sequence,
):
    """A channel to the server at ``address`` made by ``channels`` (the module :mod:`grpc` for
    the blocking client, :mod:`grpc.aio` for the asyncio one), with the stubs of its two
    services: ``(channel, game service stub, lobby stub)``. Over TLS when ``tls`` is set or
    ``root_certificates`` (the PEM of the CA to trust; the system's roots otherwise) is given;
    ``server_name`` overrides the name the certificate must carry; ``options`` are gRPC channel
    options, passed on."""
    options = list(options)
    if server_name:
        options.append(("grpc.ssl_target_name_override", server_name))
    if tls or root_certificates is not None:
        credentials = grpc.ssl_channel_credentials(root_certificates=root_certificates)
        channel = channels.secure_channel(address, credentials, options=options)
    else:
        channel = channels.insecure_channel(address, options=options)
    return (
        channel,
        service_pb2_grpc.CanastaServiceStub(channel),
        lobby_pb2_grpc.LobbyServiceStub(channel),
    )


# --- Errors -----------------------------------------------------------------------------------


def _metadata(pairs) -> Dict[str, str]:
    out = {}
    for key, value in pairs or ():
        if isinstance(value, bytes):
            continue
        out[key.lower()] = value
    return out


def error_of(err: grpc.RpcError) -> ServiceError:
    """A failed call as a :class:`ServiceError`: the reason and the retry delay are read from
    the plain metadata every refusal of the server carries (``canasta-reason``,
    ``canasta-retry-after-ms``, ``canasta-seq`` ...)."""
    try:
        meta = _metadata(err.trailing_metadata())
    except Exception:  # a failure of the transport has no metadata
        meta = {}
    code = meta.pop(_engine.REASON_KEY, "")
    retry = meta.pop(_engine.RETRY_AFTER_MS_KEY, None)
    retry_after = int(retry) / 1000 if retry and retry.isdigit() else None
    details = {k[len("canasta-") :]: v for k, v in meta.items() if k.startswith("canasta-")}
    status = err.code()
    return ServiceError(
        status.name if status else "UNKNOWN",
        code,
        err.details() or "the call failed",
        retry_after,
        details,
    )


def error_of_play(error: service_pb2.PlayError) -> ServiceError:
    """An action refused on a Play stream, as the same :class:`ServiceError` a refused
    SubmitAction gives."""
    status = next((c.name for c in grpc.StatusCode if c.value[0] == error.code), "UNKNOWN")
    retry_after = error.retry_after_ms / 1000 if error.retry_after_ms else None
    return ServiceError(status, error.reason, error.message, retry_after, dict(error.metadata))


def retry_delay(error: ServiceError, attempt: int) -> Optional[float]:
    """How long to wait before trying a refused call again, or None if trying again is no use:
    a limit's own delay (``RESOURCE_EXHAUSTED``), a bounded backoff for a server that is
    unavailable or stopping."""
    if error.status == "RESOURCE_EXHAUSTED":
        return error.retry_after if error.retry_after is not None else backoff(attempt)
    if error.status in ("UNAVAILABLE", "DEADLINE_EXCEEDED"):
        return backoff(attempt)
    if not error.code and error.status in ("INTERNAL", "UNKNOWN", "CANCELLED"):
        # Not the service's answer (every one of its errors has a reason) but the transport's:
        # grpc reports a call on a connection that broke under it so.
        return backoff(attempt)
    return None


def backoff(attempt: int) -> float:
    """The wait before attempt ``attempt`` + 1: 50 ms doubling to at most 2 s."""
    return min(0.05 * (2 ** min(attempt, 6)), 2.0)


# --- Games ------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class SeatInfo:
    """One seat of a game, as the game list shows it."""

    seat: int
    side: int
    occupied: bool
    name: str
    #: The server's built-in bot that plays the seat (``greedy``, ``search:50ms`` ...); '' for a
    #: seat a client holds or may join.
    bot: str = ""


@dataclasses.dataclass(frozen=True)
class GameInfo:
    """A game as the server lists it. ``summary`` is the server's ``canasta.v1.GameSummary``."""

    game_id: str
    preset: str
    players: int
    options: Dict[str, str]
    #: ``waiting``, ``playing`` or ``finished``.
    status: str
    seats: Tuple[SeatInfo, ...]
    #: The seq of its last event.
    seq: int
    #: The winning side once the match is over (None for no winner, or before).
    winner: Optional[int]
    #: Every side's score so far.
    totals: Tuple[int, ...]
    #: How the match ended (``target``, ``forfeit``, ``abandoned``, ``expired``, ``cancelled``),
    #: None before.
    end: Optional[str]
    summary: Any = dataclasses.field(repr=False, compare=False)
    #: The creator token (CreateGame only): it cancels the game while it waits for players.
    creator_token: Optional[str] = dataclasses.field(default=None, repr=False)

    @classmethod
    def of(cls, summary, creator_token=None) -> "GameInfo":
        result = summary.result if summary.HasField("result") else None
        preset = game_pb2.Preset.Name(summary.rules.preset)
        return cls(
            game_id=summary.game_id,
            preset=preset.removeprefix("PRESET_").lower(),
            players=summary.rules.player_count,
            options=dict(summary.rules.options),
            status=_STATUS_NAMES.get(summary.status, "unknown"),
            seats=tuple(
                SeatInfo(s.seat, s.side, s.occupied, s.display_name, s.bot)
                for s in summary.seats
            ),
            seq=summary.seq,
            winner=result.winner_side if result and result.HasField("winner_side") else None,
            totals=tuple(result.totals) if result else (),
            end=_END_NAMES.get(result.end) if result else None,
            summary=summary,
            creator_token=creator_token,
        )

    @property
    def free_seats(self) -> List[int]:
        """The seats nobody holds."""
        return [s.seat for s in self.seats if not s.occupied]


@dataclasses.dataclass(frozen=True)
class MatchResult:
    """How a match ended, as the seat that played it sees it."""

    #: The winning side; None when no side won (abandoned, expired, cancelled).
    winner: Optional[int]
    #: Every side's score.
    totals: Tuple[int, ...]
    #: ``target``, ``forfeit``, ``abandoned``, ``expired`` or ``cancelled``.
    end: str
    #: The seat's side.
    side: int

    @property
    def won(self) -> bool:
        """True if the seat's side won."""
        return self.winner == self.side


def create_request(
    preset: str,
    players: int,
    options: Optional[Dict[str, str]],
    seed: Optional[int],
    first_dealer: Optional[int],
    start_scores: Optional[Sequence[int]],
    move_budget_ms: int,
    timeout_policy: str,
    bots: Optional[Dict[int, str]] = None,
) -> service_pb2.CreateGameRequest:
    """CreateGame's request; the rules are checked by the engine first (``SetupRefused``)."""
    request = service_pb2.CreateGameRequest(
        rules=rules_of(preset, players, options), start_scores=list(start_scores or ())
    )
    for seat, bot in sorted((bots or {}).items()):
        request.bots.add(seat=seat, bot=bot)
    if seed is not None:
        request.seed = seed
    if first_dealer is not None:
        request.first_dealer = first_dealer
    set_time_control(request, move_budget_ms, timeout_policy)
    return request


def rules_of(preset: str, players: int, options: Optional[Dict[str, str]]) -> game_pb2.RuleSet:
    """The wire rules, checked by the engine first (``SetupRefused``)."""
    return game_pb2.RuleSet.FromString(
        _engine.rules_to_wire_bytes(preset, players, {k: str(v) for k, v in (options or {}).items()})
    )


def set_time_control(request, move_budget_ms: int, timeout_policy: str) -> None:
    """Sets a request's ``time_control``: none for a move budget of 0."""
    if move_budget_ms:
        if timeout_policy not in _POLICIES:
            raise ValueError(
                f"no timeout policy {timeout_policy!r}: use 'fallback_move' or 'forfeit'"
            )
        request.time_control.move_budget_ms = move_budget_ms
        request.time_control.policy = _POLICIES[timeout_policy]


def seek_request(
    preset: str,
    players: int,
    options: Optional[Dict[str, str]],
    move_budget_ms: int,
    timeout_policy: str,
    partner: Optional[str],
    rated: Optional[bool],
    fill_with_bots_after: Optional[float],
) -> lobby_pb2.SeekRequest:
    """Seek's request. ``fill_with_bots_after`` is in seconds (None or 0: never)."""
    request = lobby_pb2.SeekRequest(
        rules=rules_of(preset, players, options), partner=partner or ""
    )
    set_time_control(request, move_budget_ms, timeout_policy)
    if rated is not None:
        request.rated = rated
    if fill_with_bots_after:
        if fill_with_bots_after < 0:
            raise ValueError(
                f"fill_with_bots_after is {fill_with_bots_after} s: give a wait of 0 or more "
                "seconds (None never fills)"
            )
        # At least 1 ms: a positive wait that rounds to 0 would mean "never".
        request.fill_with_bots_after_ms = max(1, round(fill_with_bots_after * 1000))
    return request


def seat_args(seated: lobby_pb2.SeekSeated) -> Tuple[str, int, int, str, bytes]:
    """The arguments of a seat (game id, number, side, token, rules) from a seek's answer."""
    game = seated.game
    side = game.seats[seated.seat].side
    return seated.game_id, seated.seat, side, seated.token, game.rules.SerializeToString()


def list_request(status: Optional[str], page_size: int, page_token: str):
    """ListGames' request."""
    if status is not None and status not in _STATUSES:
        raise ValueError(f"no game status {status!r}: use 'waiting', 'playing' or 'finished'")
    return service_pb2.ListGamesRequest(
        page_size=page_size, page_token=page_token, status=_STATUSES.get(status, 0)
    )


def auth(token: str):
    """The metadata that acts for a seat."""
    return (("authorization", "Bearer " + token),)


#: The environment variable that holds a player's key when no key file is given.
KEY_ENV = "CANASTA_KEY"


def load_key(key_file: Optional[str] = None) -> str:
    """A player's key, for :meth:`Client.seek`: from ``key_file`` (as ``canasta register
    --key-file`` writes it: ``player NAME`` and ``key KEY`` lines, ``#`` comments; or the key
    alone), else from the environment variable ``CANASTA_KEY``. Raises ValueError saying how
    to give one; the key itself is never put in a message."""
    if key_file is None:
        key = os.environ.get(KEY_ENV, "").strip()
        if not key:
            raise ValueError(
                f"no player's key: give a key file (as `canasta register NAME --key-file FILE` "
                f"writes it) or set {KEY_ENV}"
            )
        return _checked_key(key, KEY_ENV)
    source = f"the key file {key_file}"
    try:
        with open(key_file, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as err:
        raise ValueError(f"cannot read {source}: {err}") from None
    key = None
    for line in (line.strip() for line in text.splitlines()):
        if not line or line.startswith("#") or line.startswith("player "):
            continue
        if line.startswith("key "):
            key = line[len("key ") :].strip()
        elif key is None:
            key = line
        else:
            raise ValueError(
                f"{source} has a line that is neither `key KEY` nor `player NAME`: write the "
                "key alone, or as `canasta register --key-file` does"
            )
    return _checked_key(key or "", source)


def _checked_key(key: str, source: str) -> str:
    if not key:
        raise ValueError(f"{source} holds no key: give the key `canasta register` printed or wrote")
    if len(key) > 256 or not all("!" <= c <= "~" for c in key):
        raise ValueError(
            f"{source} does not hold a player's key (a key is 32 hex digits, as `canasta "
            "register` gives it)"
        )
    return key


# --- Playing a seat ---------------------------------------------------------------------------

#: ``choose(view, legal) -> action``: ``view`` is the seat's :class:`canasta.View`, ``legal``
#: its legal actions (a list of :class:`canasta.Action`); the answer is an Action or its
#: notation. A built-in :class:`canasta.Bot` is one.
Choose = Callable[[Any, List[Any]], Any]


class _Pending:
    """The action in flight: submitted and not yet answered."""

    def __init__(self, game_id: str, seq: int, action):
        self.action = action
        self.request = service_pb2.PlayRequest(
            submit=service_pb2.SubmitActionRequest(
                game_id=game_id,
                expected_seq=seq,
                request_id=uuid.uuid4().hex,
                action=actions_pb2.Action.FromString(_engine.action_to_wire_bytes(action)),
            )
        )


class PlayState:
    """The state of a seat's Play stream across its connections, without I/O.

    The driver opens a stream with :meth:`opening`, feeds each message to :meth:`receive`, and
    does what it answers: act on a prompt (call ``choose``, then :meth:`submit`), send a request
    again after a wait (a rate limit), open the stream again (``Lagged``), or stop (the match
    ended). A dropped stream is opened again after the last seq seen, and the action in flight,
    if any, is sent again with its request id: the server applies it once, and answers it as the
    first time if it had been applied, so no action is lost or doubled.
    """

    def __init__(self, seat):
        self.seat = seat
        self.pending: Optional[_Pending] = None
        self.prompt = None
        # The seq of the last prompt acted on: a prompt is acted on once.
        self.acted = -1
        # A message came on the current stream (a stream that ends with none is a failure).
        self.progressed = False
        # The match's result, once its end was seen.
        self.ended = None

    def opening(self) -> List[service_pb2.PlayRequest]:
        """The requests that open (or reopen) the stream: the watch after the last seq seen,
        then the action in flight again."""
        self.prompt = None
        watch = service_pb2.WatchGameRequest(
            game_id=self.seat.game_id, after_seq=self.seat.last_seq, include_view=True
        )
        requests = [service_pb2.PlayRequest(watch=watch)]
        if self.pending is not None:
            requests.append(self.pending.request)
        return requests

    def submit(self, prompt, action) -> service_pb2.PlayRequest:
        """The request for ``action``, chosen on ``prompt``."""
        self.acted = prompt.seq
        self.pending = _Pending(self.seat.game_id, prompt.seq, action)
        return self.pending.request

    def receive(self, message) -> Tuple[str, Any]:
        """What to do after a message of the stream: ``("wait", None)`` for nothing,
        ``("act", prompt)``, ``("retry", (seconds, request))``, ``("reopen", None)`` or
        ``("end", result)``. Raises :class:`ServiceError` for a refused action."""
        kind = message.WhichOneof("kind")
        if kind == "update":
            update = message.update
            which = update.WhichOneof("kind")
            if which == "event":
                event = update.event
                if event.seq <= self.seat.last_seq:
                    return ("wait", None)
                if event.seq != self.seat.last_seq + 1:
                    raise ServiceError(
                        "DATA_LOSS",
                        "",
                        f"event {event.seq} came after {self.seat.last_seq}: the stream lost "
                        "events; play the seat again from its token",
                    )
                self.seat.last_seq = event.seq
                self.seat._event(event)
                if event.HasField("match_ended"):
                    self.ended = event.match_ended.result
                    if self.pending is None:
                        return ("end", self.ended)
                    # The last action's answer may come after the match's end: read on.
            elif which == "prompt":
                self.prompt = update.prompt
            elif which == "lagged":
                return ("reopen", None)
        elif kind == "result":
            result = message.result
            pending = self.pending
            if pending is not None and result.request_id == pending.request.submit.request_id:
                if result.HasField("seq"):
                    self.pending = None
                    self.seat.actions.append(pending.action)
                    if self.ended is not None:
                        return ("end", self.ended)
                else:
                    error = error_of_play(result.error)
                    if error.reason is Reason.STALE_SEQ:
                        # The game moved on (a time control acted, or the action was made
                        # on an old prompt): the stream brings the next prompt.
                        self.pending = None
                        self.seat.stale += 1
                    elif error.status == "RESOURCE_EXHAUSTED":
                        self.seat.rate_limited += 1
                        delay = error.retry_after if error.retry_after is not None else 0.1
                        return ("retry", (delay, pending.request))
                    elif self.ended is not None:
                        # Refused because the match is over: it was not applied.
                        self.pending = None
                        return ("end", self.ended)
                    else:
                        self.pending = None
                        raise error
        if self.ended is not None:
            return ("wait", None)
        prompt = self.prompt
        if (
            self.pending is None
            and prompt is not None
            and prompt.seq == self.seat.last_seq
            and prompt.seq != self.acted
        ):
            return ("act", prompt)
        return ("wait", None)

    def unanswered(self) -> Optional[service_pb2.SubmitActionRequest]:
        """After the match's end, the action in flight whose answer the stream did not bring:
        to send again as a unary SubmitAction, whose answer (the first one's, if it had been
        applied) settles it."""
        return self.pending.request.submit if self.ended is not None and self.pending else None

    def settle(self, applied: bool) -> MatchResult:
        """The answer of :meth:`unanswered`'s request; returns the match's result."""
        if applied:
            self.seat.actions.append(self.pending.action)
        self.pending = None
        return self.result(self.ended)

    def result(self, wire) -> MatchResult:
        """The match's result, for the seat."""
        return MatchResult(
            winner=wire.winner_side if wire.HasField("winner_side") else None,
            totals=tuple(wire.totals),
            end=_END_NAMES.get(wire.end, "unknown"),
            side=self.seat.side,
        )


class SeatBase:
    """What a held seat knows, in both clients: its game, number, side, token, the last seq
    seen, the actions it made, and counts of what happened on the way."""

    def __init__(self, game_id: str, seat: int, side: int, token: str, rules: bytes):
        #: The game.
        self.game_id = game_id
        #: The seat's number.
        self.seat = seat
        #: Its side.
        self.side = side
        #: The seat's token: keep it to play on after a restart (``Client.seat``).
        self.token = token
        #: The seq of the last event seen: a new stream starts after it.
        self.last_seq = 0
        #: The actions the server applied for this seat through this object, in order.
        self.actions: List[Any] = []
        #: How many times the Play stream was opened again after it dropped or lagged.
        self.resumes = 0
        #: How many times an action waited out a rate limit.
        self.rate_limited = 0
        #: How many actions the game had moved past when they arrived (STALE_SEQ).
        self.stale = 0
        #: For a seat found by ``seek``: whether its game is rated (None for a joined seat).
        self.rated: Optional[bool] = None
        self._rules = rules
        self._on_event: Optional[Callable[[Any], None]] = None
        self._metadata = auth(token)

    def view_of(self, wire_view):
        """A ``canasta.v1.GameView`` of this game as a :class:`canasta.View`."""
        return _engine.view_from_wire_bytes(wire_view.SerializeToString(), self._rules)

    def _event(self, event) -> None:
        if self._on_event is not None:
            self._on_event(event)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(game_id={self.game_id!r}, seat={self.seat}, last_seq={self.last_seq})"


def check_choose(choose) -> None:
    if not callable(choose):
        raise TypeError(
            "choose must be a function choose(view, legal) -> action, or a canasta.Bot, not "
            f"{type(choose).__name__}"
        )
