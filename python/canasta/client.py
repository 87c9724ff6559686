"""A blocking client of a Canasta server (``canasta-server``), for network bots.

::

    from canasta import Bot
    from canasta.client import Client

    with Client("127.0.0.1:50051") as client:
        game = client.create_game("official", players=4)
        seat = client.join(game.game_id, name="my bot")
        result = seat.play(Bot("greedy"))   # or any choose(view, legal) -> action
        print("won" if result.won else "lost", result.totals)

``seat.play`` plays the seat over one Play stream: on each prompt it reads the seat's view into
the same :class:`canasta.View` the in-process engine gives, lists the legal actions
(:class:`canasta.Action`), and submits what ``choose`` answers. It opens the stream again after
a dropped connection (after the last event seen, with the action in flight sent again under its
request id, so none is lost or doubled; bounded backoff), waits out rate limits for as long as
the server says, skips prompts the game moved past (``STALE_SEQ``) and raises
:class:`canasta.errors.ServiceError`, with its :class:`canasta.Reason`, for a refusal.

:mod:`canasta.aio` is the same client for asyncio. Needs the ``client`` extra
(``pip install './python[client]'``).
"""

from __future__ import annotations

import queue
import time
from typing import Callable, Dict, List, Optional, Sequence

import grpc

from . import _engine, _net
from .errors import ServiceError
from ._net import DEFAULT_ADDRESS, GameInfo, MatchResult, SeatInfo, load_key
from .v1 import lobby_pb2, service_pb2

__all__ = [
    "Client", "Seat", "GameInfo", "SeatInfo", "MatchResult", "DEFAULT_ADDRESS", "load_key",
]


class Client:
    """A connection to a server at ``address`` (``host:port``).

    ``tls=True`` (or ``root_certificates``, the PEM of the CA to trust; the system's roots
    otherwise) connects over TLS; ``server_name`` overrides the name the certificate must
    carry. ``retries`` bounds the attempts of a call or of reopening a stream that keeps
    failing (each attempt after a wait the server asks for, or a backoff up to 2 s).
    """

    def __init__(
        self,
        address: str = DEFAULT_ADDRESS,
        *,
        tls: bool = False,
        root_certificates: Optional[bytes] = None,
        server_name: Optional[str] = None,
        retries: int = 30,
        options: Sequence = (),
    ):
        self.address = address
        self.retries = retries
        #: How many times a unary call waited out a rate limit.
        self.rate_limited = 0
        #: ``stub``: the game service's stub (``canasta.v1.CanastaService``); ``lobby``: the
        #: lobby's (``canasta.v1.LobbyService``): players, matchmaking, challenges.
        self._channel, self.stub, self.lobby = _net.open_channel(
            grpc,
            address,
            tls=tls,
            root_certificates=root_certificates,
            server_name=server_name,
            options=options,
        )

    def close(self) -> None:
        """Closes the connection."""
        self._channel.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Client({self.address!r})"

    # --- calls ---------------------------------------------------------------------------------

    def call(self, method, request, metadata=(), *, idempotent: bool = False):
        """A unary call: waits out the server's rate limits (RESOURCE_EXHAUSTED, for as long as
        it asks) and, for a call that changes nothing (``idempotent``), a server that is
        unavailable; raises :class:`ServiceError` for a refusal."""
        attempt = 0
        while True:
            try:
                return method(request, metadata=metadata)
            except grpc.RpcError as err:
                error = _net.error_of(err)
                delay = _net.retry_delay(error, attempt)
                limited = error.status == "RESOURCE_EXHAUSTED"
                attempt += 1
                if delay is None or not (limited or idempotent) or attempt > self.retries:
                    raise error from None
                if limited:
                    self.rate_limited += 1
                time.sleep(delay)

    def create_game(
        self,
        preset: str = "official",
        players: int = 4,
        *,
        options: Optional[Dict[str, str]] = None,
        seed: Optional[int] = None,
        first_dealer: Optional[int] = None,
        start_scores: Optional[Sequence[int]] = None,
        move_budget_ms: int = 0,
        timeout_policy: str = "fallback_move",
        bots: Optional[Dict[int, str]] = None,
    ) -> GameInfo:
        """Creates a game (it waits for its players); ``creator_token`` of the answer cancels
        it while it waits (:meth:`cancel_game`). ``bots`` gives seats to the server's own
        built-in bots, which it plays itself (``{1: "greedy", 3: "search:50ms"}``); a move
        budget (``move_budget_ms``) comes with its ``timeout_policy`` (``fallback_move`` or
        ``forfeit``)."""
        request = _net.create_request(
            preset, players, options, seed, first_dealer, start_scores, move_budget_ms,
            timeout_policy, bots,
        )
        response = self.call(self.stub.CreateGame, request)
        return GameInfo.of(response.game, response.creator_token)

    def list_games(self, status: Optional[str] = None, *, limit: int = 500) -> List[GameInfo]:
        """The server's games, newest first (at most ``limit``); ``status`` keeps only
        ``waiting``, ``playing`` or ``finished`` ones."""
        games: List[GameInfo] = []
        token = ""
        while len(games) < limit:
            request = _net.list_request(status, min(limit - len(games), 500), token)
            page = self.call(self.stub.ListGames, request, idempotent=True)
            games.extend(GameInfo.of(g) for g in page.games)
            token = page.next_page_token
            if not token:
                break
        return games[:limit]

    def get_game(self, game_id: str) -> GameInfo:
        """One game."""
        request = service_pb2.GetGameRequest(game_id=game_id)
        return GameInfo.of(self.call(self.stub.GetGame, request, idempotent=True).game)

    def export_game(self, game_id: str):
        """The whole record of a finished game, replayed by the engine: a
        :class:`canasta.Game` as the match ended (its ``actions``, ``history``, ``scores``;
        ``record()`` gives the record's JSON form, ``canasta replay`` reads it)."""
        request = service_pb2.ExportGameRequest(game_id=game_id)
        response = self.call(self.stub.ExportGame, request, idempotent=True)
        return _engine.game_from_wire_record(response.record.SerializeToString())

    def cancel_game(self, game_id: str, creator_token: str) -> GameInfo:
        """Cancels a game that waits for its players, with its creator token."""
        request = service_pb2.CancelGameRequest(game_id=game_id)
        response = self.call(self.stub.CancelGame, request, _net.auth(creator_token))
        return GameInfo.of(response.game)

    def join(self, game_id: str, seat: Optional[int] = None, *, name: str = "python") -> "Seat":
        """Takes a seat (the lowest free one if ``seat`` is None) under the display name
        ``name``; the answer holds the seat's token."""
        request = service_pb2.JoinGameRequest(game_id=game_id, display_name=name)
        if seat is not None:
            request.seat = seat
        response = self.call(self.stub.JoinGame, request)
        side = response.game.seats[response.seat].side
        rules = response.game.rules.SerializeToString()
        return Seat(self, game_id, response.seat, side, response.token, rules)

    def seat(self, game_id: str, token: str) -> "Seat":
        """The seat a token holds (one joined before, by this program or another): to play on
        after a restart."""
        game = self.get_game(game_id)
        request = service_pb2.GetViewRequest(game_id=game_id)
        view = self.call(self.stub.GetView, request, _net.auth(token), idempotent=True).view
        if not view.HasField("viewer_seat"):
            raise ValueError("the token holds no seat of this game")
        number = view.viewer_seat
        side = game.summary.seats[number].side
        return Seat(self, game_id, number, side, token, game.summary.rules.SerializeToString())

    def register(self, name: str) -> str:
        """Registers a player named ``name`` (unique regardless of case) and returns its key,
        which the server gives only here and stores only a hash of: keep it (a lost key
        cannot be recovered; register another name). The key goes to :meth:`seek`."""
        request = lobby_pb2.RegisterPlayerRequest(name=name)
        return self.call(self.lobby.RegisterPlayer, request).key

    def seek(
        self,
        key: str,
        preset: str = "official",
        players: int = 4,
        *,
        options: Optional[Dict[str, str]] = None,
        move_budget_ms: int = 0,
        timeout_policy: str = "fallback_move",
        partner: Optional[str] = None,
        rated: Optional[bool] = None,
        fill_with_bots_after: Optional[float] = None,
        timeout: Optional[float] = None,
        on_waiting: Optional[Callable[[object], None]] = None,
    ) -> "Seat":
        """Finds a game through the server's matchmaking, as the player whose key is ``key``,
        and returns its seat (the same :class:`Seat` as :meth:`join`'s: ``seat.play(choose)``).

        The rules (``preset``, ``players``, ``options``) and the time control
        (``move_budget_ms``, ``timeout_policy``) are those of :meth:`create_game`; the player
        meets only seekers who asked for the same. ``partner`` names the player to sit with
        (who must seek naming this one in turn); ``rated`` (None for the server's default,
        rated) must be False for rules with options. ``fill_with_bots_after`` (seconds; None
        never) lets the server's house players take the seats still empty after that wait.

        Blocks until the player is seated. ``on_waiting`` gets each ``canasta.v1.SeekWaiting``
        (the seek's id, the players waiting and needed) while the player waits. The seek lasts
        as long as this call: ``timeout`` (seconds) ends it with a :class:`ServiceError`
        ``DEADLINE_EXCEEDED``, and an exception raised in ``on_waiting`` (or a
        KeyboardInterrupt) ends it too; the server then cancels the seek. A rate limit on
        opening the seek is waited out; a stream that drops raises ``UNAVAILABLE`` (seek again;
        the player's WatchPlayer stream says if a seat was taken just before). Refusals
        (``UNKNOWN_PLAYER_KEY``, ``HOUSE_BOTS_UNAVAILABLE``, ``RATED_HOUSE_RULES`` ...) raise
        :class:`ServiceError` with their reason."""
        request = _net.seek_request(
            preset, players, options, move_budget_ms, timeout_policy, partner, rated,
            fill_with_bots_after,
        )
        deadline = None if timeout is None else time.monotonic() + timeout
        attempt = 0
        while True:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            call = self.lobby.Seek(request, metadata=_net.auth(key), timeout=left)
            heard = False
            try:
                for message in call:
                    heard = True
                    if message.WhichOneof("kind") == "seated":
                        seat = Seat(self, *_net.seat_args(message.seated))
                        seat.rated = message.seated.rated
                        return seat
                    if on_waiting is not None:
                        on_waiting(message.waiting)
            except grpc.RpcError as err:
                error = _net.error_of(err)
                attempt += 1
                # Only a seek refused before it began is tried again: nothing was queued.
                if heard or error.status != "RESOURCE_EXHAUSTED" or attempt > self.retries:
                    raise error from None
                self.rate_limited += 1
                time.sleep(_net.retry_delay(error, attempt))
                continue
            finally:
                call.cancel()
            raise ServiceError(
                "UNAVAILABLE", "", "the server ended the seek's stream before seating the player; "
                "seek again",
            )


class Seat(_net.SeatBase):
    """A seat held by its token: its view, and :meth:`play`."""

    def __init__(self, client: Client, game_id, seat, side, token, rules):
        super().__init__(game_id, seat, side, token, rules)
        self.client = client

    def view(self):
        """The seat's view now (a :class:`canasta.View`); ``view.legal_actions()`` lists its
        legal actions when it is the seat to act."""
        request = service_pb2.GetViewRequest(game_id=self.game_id)
        stub = self.client.stub
        response = self.client.call(stub.GetView, request, self._metadata, idempotent=True)
        return self.view_of(response.view)

    def leave(self) -> None:
        """Gives the seat up (before the match ends); the token acts no more."""
        request = service_pb2.LeaveGameRequest(game_id=self.game_id)
        self.client.call(self.client.stub.LeaveGame, request, self._metadata)

    def play(
        self, choose: _net.Choose, *, on_event: Optional[Callable[[object], None]] = None
    ) -> MatchResult:
        """Plays the seat to the end of the match: ``choose(view, legal)`` answers each prompt
        (an exception it raises ends the play and is raised here). ``on_event`` gets every
        event (a ``canasta.v1.GameEvent``) in order, once. Returns the match's result."""
        _net.check_choose(choose)
        self._on_event = on_event
        state = _net.PlayState(self)
        failures = 0
        first = True
        while True:
            if not first:
                self.resumes += 1
            first = False
            requests: "queue.Queue" = queue.Queue()
            for r in state.opening():
                requests.put(r)
            call = self.client.stub.Play(_requests(requests), metadata=self._metadata)
            try:
                outcome = self._drive(call, requests, state, choose)
            except grpc.RpcError as err:
                if state.ended is not None:
                    return self._settle(state)
                if state.progressed:
                    failures = 0  # a stream that dropped after playing on is a new failure
                error = _net.error_of(err)
                delay = _net.retry_delay(error, failures)
                failures += 1
                if delay is None or failures > self.client.retries:
                    raise error from None
                time.sleep(delay)
                continue
            finally:
                requests.put(None)
                call.cancel()
            if outcome is not None:
                return state.result(outcome)
            if state.ended is not None:
                return self._settle(state)
            if state.progressed:
                failures = 0
            else:
                failures += 1
                if failures > self.client.retries:
                    raise ServiceError(
                        "UNAVAILABLE", "", "the server keeps ending the stream before the match"
                    )
                time.sleep(_net.backoff(failures))

    def _settle(self, state: _net.PlayState) -> MatchResult:
        """The match ended with an action whose answer the stream did not bring: the same
        request again, as a unary call, is answered as the first time if it was applied."""
        request = state.unanswered()
        try:
            self.client.call(self.client.stub.SubmitAction, request, self._metadata)
        except ServiceError:
            return state.settle(False)
        return state.settle(True)

    def _drive(self, call, requests, state: _net.PlayState, choose):
        """Reads one stream until the match ends (its result) or the stream does (None)."""
        state.progressed = False
        for message in call:
            state.progressed = True
            todo, value = state.receive(message)
            if todo == "act":
                view = self.view_of(value.view)
                action = choose(view, view.legal_actions())
                requests.put(state.submit(value, action))
            elif todo == "retry":
                delay, request = value
                time.sleep(delay)
                requests.put(request)
            elif todo == "reopen":
                return None
            elif todo == "end":
                return value
        return None


def _requests(q: "queue.Queue"):
    """The requests of a Play stream, as they are put in ``q``, until None."""
    while True:
        request = q.get()
        if request is None:
            return
        yield request
