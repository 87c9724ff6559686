"""The client of :mod:`canasta.client` for asyncio (grpc.aio): the same calls, awaited.

::

    import asyncio
    from canasta import Bot
    from canasta.aio import Client

    async def main():
        async with Client("127.0.0.1:50051") as client:
            seat = await client.join(GAME_ID)
            result = await seat.play(Bot("greedy"))

    asyncio.run(main())

``choose`` may be a plain function or a coroutine function (``async def choose(view, legal)``).
The resuming, the rate limits and the refusals are those of :mod:`canasta.client`.
"""

from __future__ import annotations

import asyncio
import inspect
from typing import Callable, Dict, List, Optional, Sequence

import grpc
import grpc.aio

from . import _engine, _net
from .errors import ServiceError
from ._net import DEFAULT_ADDRESS, GameInfo, MatchResult, SeatInfo, load_key
from .v1 import lobby_pb2, service_pb2

__all__ = [
    "Client", "Seat", "GameInfo", "SeatInfo", "MatchResult", "DEFAULT_ADDRESS", "load_key",
]


class Client:
    """A connection to a server at ``address``, for asyncio; the arguments are those of
    :class:`canasta.client.Client`. Create it inside a running event loop."""

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
            grpc.aio,
            address,
            tls=tls,
            root_certificates=root_certificates,
            server_name=server_name,
            options=options,
        )

    async def close(self) -> None:
        """Closes the connection."""
        await self._channel.close()

    async def __aenter__(self) -> "Client":
        return self

    async def __aexit__(self, *exc) -> None:
        await self.close()

    def __repr__(self) -> str:
        return f"aio.Client({self.address!r})"

    async def call(self, method, request, metadata=(), *, idempotent: bool = False):
        """A unary call, as :meth:`canasta.client.Client.call`."""
        attempt = 0
        while True:
            try:
                return await method(request, metadata=metadata)
            except grpc.RpcError as err:
                error = _net.error_of(err)
                delay = _net.retry_delay(error, attempt)
                limited = error.status == "RESOURCE_EXHAUSTED"
                attempt += 1
                if delay is None or not (limited or idempotent) or attempt > self.retries:
                    raise error from None
                if limited:
                    self.rate_limited += 1
                await asyncio.sleep(delay)

    async def create_game(
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
        """Creates a game, as :meth:`canasta.client.Client.create_game`."""
        request = _net.create_request(
            preset, players, options, seed, first_dealer, start_scores, move_budget_ms,
            timeout_policy, bots,
        )
        response = await self.call(self.stub.CreateGame, request)
        return GameInfo.of(response.game, response.creator_token)

    async def list_games(self, status: Optional[str] = None, *, limit: int = 500) -> List[GameInfo]:
        """The server's games, as :meth:`canasta.client.Client.list_games`."""
        games: List[GameInfo] = []
        token = ""
        while len(games) < limit:
            request = _net.list_request(status, min(limit - len(games), 500), token)
            page = await self.call(self.stub.ListGames, request, idempotent=True)
            games.extend(GameInfo.of(g) for g in page.games)
            token = page.next_page_token
            if not token:
                break
        return games[:limit]

    async def get_game(self, game_id: str) -> GameInfo:
        """One game."""
        request = service_pb2.GetGameRequest(game_id=game_id)
        return GameInfo.of((await self.call(self.stub.GetGame, request, idempotent=True)).game)

    async def export_game(self, game_id: str):
        """The whole record of a finished game, replayed by the engine: a
        :class:`canasta.Game` as the match ended (its ``actions``, ``history``, ``scores``;
        ``record()`` gives the record's JSON form, ``canasta replay`` reads it)."""
        request = service_pb2.ExportGameRequest(game_id=game_id)
        response = await self.call(self.stub.ExportGame, request, idempotent=True)
        return _engine.game_from_wire_record(response.record.SerializeToString())

    async def cancel_game(self, game_id: str, creator_token: str) -> GameInfo:
        """Cancels a game that waits for its players, with its creator token."""
        request = service_pb2.CancelGameRequest(game_id=game_id)
        response = await self.call(self.stub.CancelGame, request, _net.auth(creator_token))
        return GameInfo.of(response.game)

    async def join(self, game_id: str, seat: Optional[int] = None, *, name: str = "python") -> "Seat":
        """Takes a seat, as :meth:`canasta.client.Client.join`."""
        request = service_pb2.JoinGameRequest(game_id=game_id, display_name=name)
        if seat is not None:
            request.seat = seat
        response = await self.call(self.stub.JoinGame, request)
        side = response.game.seats[response.seat].side
        rules = response.game.rules.SerializeToString()
        return Seat(self, game_id, response.seat, side, response.token, rules)

    async def seat(self, game_id: str, token: str) -> "Seat":
        """The seat a token holds, as :meth:`canasta.client.Client.seat`."""
        game = await self.get_game(game_id)
        request = service_pb2.GetViewRequest(game_id=game_id)
        response = await self.call(self.stub.GetView, request, _net.auth(token), idempotent=True)
        if not response.view.HasField("viewer_seat"):
            raise ValueError("the token holds no seat of this game")
        number = response.view.viewer_seat
        side = game.summary.seats[number].side
        return Seat(self, game_id, number, side, token, game.summary.rules.SerializeToString())

    async def register(self, name: str) -> str:
        """Registers a player and returns its key, as
        :meth:`canasta.client.Client.register`."""
        request = lobby_pb2.RegisterPlayerRequest(name=name)
        return (await self.call(self.lobby.RegisterPlayer, request)).key

    async def seek(
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
        """Finds a game through matchmaking and returns its seat, as
        :meth:`canasta.client.Client.seek`. Cancelling the awaiting task (``asyncio.wait_for``,
        ``task.cancel()``) cancels the seek on the server; ``on_waiting`` may be a coroutine
        function."""
        request = _net.seek_request(
            preset, players, options, move_budget_ms, timeout_policy, partner, rated,
            fill_with_bots_after,
        )
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        attempt = 0
        while True:
            left = None if deadline is None else max(0.0, deadline - loop.time())
            call = self.lobby.Seek(request, metadata=_net.auth(key), timeout=left)
            heard = False
            try:
                while True:
                    message = await call.read()
                    if message is grpc.aio.EOF:
                        break
                    heard = True
                    if message.WhichOneof("kind") == "seated":
                        seat = Seat(self, *_net.seat_args(message.seated))
                        seat.rated = message.seated.rated
                        return seat
                    if on_waiting is not None:
                        waited = on_waiting(message.waiting)
                        if inspect.isawaitable(waited):
                            await waited
            except grpc.RpcError as err:
                error = _net.error_of(err)
                attempt += 1
                # Only a seek refused before it began is tried again: nothing was queued.
                if heard or error.status != "RESOURCE_EXHAUSTED" or attempt > self.retries:
                    raise error from None
                self.rate_limited += 1
                await asyncio.sleep(_net.retry_delay(error, attempt))
                continue
            finally:
                call.cancel()
            raise ServiceError(
                "UNAVAILABLE", "", "the server ended the seek's stream before seating the player; "
                "seek again",
            )


class Seat(_net.SeatBase):
    """A seat held by its token, for asyncio: its view, and :meth:`play`."""

    def __init__(self, client: Client, game_id, seat, side, token, rules):
        super().__init__(game_id, seat, side, token, rules)
        self.client = client

    async def view(self):
        """The seat's view now (a :class:`canasta.View`)."""
        request = service_pb2.GetViewRequest(game_id=self.game_id)
        stub = self.client.stub
        response = await self.client.call(stub.GetView, request, self._metadata, idempotent=True)
        return self.view_of(response.view)

    async def leave(self) -> None:
        """Gives the seat up (before the match ends)."""
        request = service_pb2.LeaveGameRequest(game_id=self.game_id)
        await self.client.call(self.client.stub.LeaveGame, request, self._metadata)

    async def play(
        self, choose: _net.Choose, *, on_event: Optional[Callable[[object], None]] = None
    ) -> MatchResult:
        """Plays the seat to the end of the match, as :meth:`canasta.client.Seat.play`;
        ``choose`` may be a coroutine function."""
        _net.check_choose(choose)
        self._on_event = on_event
        state = _net.PlayState(self)
        failures = 0
        first = True
        while True:
            if not first:
                self.resumes += 1
            first = False
            call = self.client.stub.Play(metadata=self._metadata)
            state.progressed = False
            try:
                for request in state.opening():
                    await call.write(request)
                outcome = await self._drive(call, state, choose)
            except (grpc.RpcError, asyncio.InvalidStateError) as err:
                if state.ended is not None:
                    return await self._settle(state)
                if state.progressed:
                    failures = 0  # a stream that dropped after playing on is a new failure
                if isinstance(err, grpc.RpcError):
                    error = _net.error_of(err)
                else:  # a write to a call that has ended
                    error = ServiceError("UNAVAILABLE", "", "the stream ended under a write")
                delay = _net.retry_delay(error, failures)
                failures += 1
                if delay is None or failures > self.client.retries:
                    raise error from None
                await asyncio.sleep(delay)
                continue
            finally:
                call.cancel()
            if outcome is not None:
                return state.result(outcome)
            if state.ended is not None:
                return await self._settle(state)
            if state.progressed:
                failures = 0
            else:
                failures += 1
                if failures > self.client.retries:
                    raise ServiceError(
                        "UNAVAILABLE", "", "the server keeps ending the stream before the match"
                    )
                await asyncio.sleep(_net.backoff(failures))

    async def _settle(self, state: _net.PlayState) -> MatchResult:
        """The match ended with an action whose answer the stream did not bring: the same
        request again, as a unary call, is answered as the first time if it was applied."""
        request = state.unanswered()
        try:
            await self.client.call(self.client.stub.SubmitAction, request, self._metadata)
        except ServiceError:
            return state.settle(False)
        return state.settle(True)

    async def _drive(self, call, state: _net.PlayState, choose):
        state.progressed = False
        while True:
            message = await call.read()
            if message is grpc.aio.EOF:
                return None
            state.progressed = True
            todo, value = state.receive(message)
            if todo == "act":
                view = self.view_of(value.view)
                action = choose(view, view.legal_actions())
                if inspect.isawaitable(action):
                    action = await action
                await call.write(state.submit(value, action))
            elif todo == "retry":
                delay, request = value
                await asyncio.sleep(delay)
                await call.write(request)
            elif todo == "reopen":
                return None
            elif todo == "end":
                return value
