"""The network client (canasta.client, canasta.aio) against real servers.

tests/tests/python_package.rs starts the servers on free loopback ports and names them:
CANASTA_TEST_SERVER (the defaults of the tests' servers), CANASTA_TEST_LIMITED_SERVER (a seat
token may make 20 requests a second, in bursts of 40) and CANASTA_TEST_TLS_SERVER (over TLS,
with a certificate for "localhost" from the authority in the file CANASTA_TEST_TLS_CA). Every seat of every game is played
through the client; a small TCP proxy in this file cuts the connections of one seat mid-game.
"""

import asyncio
import os
import socket
import threading
import uuid

import pytest

from canasta import Action, Bot, Game, Reason, ServiceError, SetupRefused, _engine
from canasta import aio
from canasta.client import Client

SERVER = os.environ.get("CANASTA_TEST_SERVER")
LIMITED = os.environ.get("CANASTA_TEST_LIMITED_SERVER")
TLS = os.environ.get("CANASTA_TEST_TLS_SERVER")
TLS_CA = os.environ.get("CANASTA_TEST_TLS_CA")

needs_servers = pytest.mark.skipif(
    not (SERVER and LIMITED and TLS and TLS_CA),
    reason="CANASTA_TEST_SERVER, CANASTA_TEST_LIMITED_SERVER, CANASTA_TEST_TLS_SERVER and "
    "CANASTA_TEST_TLS_CA name no servers (tests/tests/python_package.rs starts them)",
)

#: A short match: a few deals.
SHORT = {"target_score": "1000"}


class Events:
    """The events a seat saw, checked to come once each, in order."""

    def __init__(self):
        self.seqs = []

    def __call__(self, event):
        assert event.seq == len(self.seqs) + 1, (event.seq, self.seqs[-3:])
        self.seqs.append(event.seq)


def play_in_threads(address, game_id, seats, *, result_of=None):
    """Plays `seats` ({seat: choose}) of a game in threads, each with its own client; returns
    {seat: (Seat, MatchResult)} once every one has finished, raising the first failure."""
    out, errors = {}, []

    def run(number, choose):
        try:
            with Client(address) as client:
                seat = client.join(game_id, number, name=f"bot {number}")
                out[number] = (seat, seat.play(choose))
        except BaseException as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=run, args=item) for item in seats.items()]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return out


def check_record(client, game_id, seats):
    """The finished game's record holds exactly the actions each seat's client made, in order,
    and replays to the result every seat was told."""
    game = client.export_game(game_id)
    assert game.over
    for number, (seat, result) in seats.items():
        made = [a for s, a in game.actions if s == number]
        assert made == seat.actions, f"seat {number}: the record and the client disagree"
        assert result.winner == game.winner
        assert list(result.totals) == game.scores
        assert result.end == "target"
    info = client.get_game(game_id)
    assert info.status == "finished" and info.end == "target"
    assert info.winner == game.winner


@needs_servers
def test_the_blocking_client_plays_a_whole_match():
    with Client(SERVER) as client:
        game = client.create_game("official", 4, options=SHORT, seed=3)
        assert game.status == "waiting" and game.free_seats == [0, 1, 2, 3]
        assert game.creator_token
        listed = client.list_games("waiting")
        assert game.game_id in [g.game_id for g in listed]
        events = Events()
        chosen = []

        def mine(view, legal):
            # The view and the actions are the in-process engine's objects.
            assert view.seat == 0 and view.to_act == 0 and view.hand is not None
            assert legal and all(isinstance(a, Action) for a in legal)
            action = legal[0] if len(legal) == 1 else Bot("greedy")(view, legal)
            assert action in legal or view.phase == "play"
            chosen.append(action)
            return action

        def run_mine():
            with Client(SERVER) as c:
                seat = c.join(game.game_id, 0, name="me")
                outcome["mine"] = (seat, seat.play(mine, on_event=events))

        outcome = {}
        me = threading.Thread(target=run_mine)
        me.start()
        others = play_in_threads(
            SERVER,
            game.game_id,
            {1: Bot("greedy"), 2: Bot("random", seed=2), 3: Bot("safe")},
        )
        me.join()
        seat, result = outcome["mine"]
        assert seat.actions == chosen, "every action chosen was applied once"
        assert result.side == 0 and result.won == (result.winner == 0)
        assert events.seqs[-1] == client.get_game(game.game_id).seq
        check_record(client, game.game_id, {0: outcome["mine"], **others})


@needs_servers
def test_a_seat_plays_against_the_servers_own_bots():
    with Client(SERVER) as client:
        game = client.create_game(
            "official", 4, options=SHORT, seed=31, bots={1: "greedy", 2: "random", 3: "safe"}
        )
        assert [s.bot for s in game.seats] == ["", "greedy", "random", "safe"]
        assert game.free_seats == [0]
        me = client.join(game.game_id, name="alone")
        result = me.play(Bot("greedy"))
        record = client.export_game(game.game_id)
        assert [a for s, a in record.actions if s == 0] == me.actions
        assert result.winner == record.winner and list(result.totals) == record.scores


@needs_servers
def test_a_match_over_tls():
    """Both clients over TLS, trusting the server's authority for the name it certifies."""
    with open(TLS_CA, "rb") as f:
        ca = f.read()
    with Client(TLS, root_certificates=ca, server_name="localhost") as client:
        game = client.create_game("official", 2, options=SHORT, seed=13)
        first = client.join(game.game_id, name="tls")

        async def other():
            async with aio.Client(TLS, root_certificates=ca, server_name="localhost") as c:
                seat = await c.join(game.game_id, name="tls aio")
                return seat, await seat.play(Bot("random", seed=3))

        box = {}
        thread = threading.Thread(target=lambda: box.update(r=asyncio.run(other())))
        thread.start()
        result = first.play(Bot("greedy"))
        thread.join()
        check_record(client, game.game_id, {first.seat: (first, result), 1: box["r"]})
    # Without the authority the server's certificate is not trusted: nothing is done.
    with Client(TLS, tls=True, server_name="localhost", retries=1) as client:
        with pytest.raises(ServiceError) as e:
            client.list_games()
        assert e.value.status == "UNAVAILABLE" and e.value.reason is None


@needs_servers
def test_the_asyncio_client_plays_a_whole_match():
    async def main():
        async with aio.Client(SERVER) as client:
            game = await client.create_game("samba", 2, options={"target_score": "1500"}, seed=4)
            seats = [await client.join(game.game_id, n, name=f"aio {n}") for n in (0, 1)]
            bot = Bot("greedy")

            async def choose(view, legal):  # a coroutine function is awaited
                await asyncio.sleep(0)
                return bot(view, legal)

            results = await asyncio.gather(
                seats[0].play(choose), seats[1].play(Bot("random", seed=9))
            )
            record = await client.export_game(game.game_id)
            for seat, result in zip(seats, results):
                assert [a for s, a in record.actions if s == seat.seat] == seat.actions
                assert result.winner == record.winner and list(result.totals) == record.scores
            info = await client.get_game(game.game_id)
            assert info.status == "finished"

    asyncio.run(main())


def unique(name):
    """A player name no earlier run of the suite registered on the same server."""
    return f"{name}-{uuid.uuid4().hex[:8]}"


def check_seated_with_house_players(game, seat, result, record):
    """A lone seeker sits with house players in every other seat, and its result is the
    record's."""
    assert [s.occupied for s in game.seats] == [True] * 4
    others = [s for s in game.seats if s.seat != seat.seat]
    assert all(s.bot for s in others), f"house players fill the other seats: {others}"
    assert not next(s for s in game.seats if s.seat == seat.seat).bot
    assert seat.rated is False, "a house player sits twice (two of them for three seats)"
    assert [a for s, a in record.actions if s == seat.seat] == seat.actions
    assert result.winner == record.winner and list(result.totals) == record.scores
    assert result.end == "target"


@needs_servers
def test_a_seeker_is_seated_with_house_players_and_plays_to_the_end():
    with Client(SERVER) as client:
        key = client.register(unique("seeker"))
        assert len(key) == 32
        waiting = []
        seat = client.seek(
            key, "official", 4, options=SHORT, rated=False, fill_with_bots_after=0.05,
            on_waiting=waiting.append,
        )
        # Seated at once or after one wait: the stream said how the queue stood.
        assert all(w.needed == 4 and w.waiting >= 1 and w.seek_id for w in waiting)
        game = client.get_game(seat.game_id)
        assert game.players == 4 and game.options == SHORT
        result = seat.play(Bot("greedy"))
        record = client.export_game(seat.game_id)
        check_seated_with_house_players(game, seat, result, record)


@needs_servers
def test_the_asyncio_client_seeks_and_plays_with_house_players():
    async def main():
        async with aio.Client(SERVER) as client:
            key = await client.register(unique("aio seeker"))
            seen = []

            async def on_waiting(w):  # a coroutine function is awaited
                seen.append(w.needed)

            seat = await client.seek(
                key, "official", 4, options=SHORT, rated=False, fill_with_bots_after=0.05,
                on_waiting=on_waiting,
            )
            assert isinstance(seat, aio.Seat) and set(seen) <= {4}
            game = await client.get_game(seat.game_id)
            result = await seat.play(Bot("random", seed=5))
            record = await client.export_game(seat.game_id)
            check_seated_with_house_players(game, seat, result, record)

    asyncio.run(main())


@needs_servers
def test_four_seekers_are_seated_at_one_table_and_play_it():
    """Four players seeking the same rules meet in one game, a seat each, and play it out."""
    names = [unique(f"table {i}") for i in range(4)]
    with Client(SERVER) as client:
        keys = [client.register(name) for name in names]
    out, errors = {}, []

    def run(i):
        try:
            with Client(SERVER) as c:
                seat = c.seek(keys[i], "official", 4, options=SHORT, rated=False)
                out[i] = (seat, seat.play(Bot("greedy") if i % 2 else Bot("random", seed=i)))
        except BaseException as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    game_ids = {seat.game_id for seat, _ in out.values()}
    assert len(game_ids) == 1, f"the four seekers sit at one table: {game_ids}"
    assert sorted(seat.seat for seat, _ in out.values()) == [0, 1, 2, 3]
    assert len({seat.token for seat, _ in out.values()}) == 4
    with Client(SERVER) as client:
        game_id = game_ids.pop()
        info = client.get_game(game_id)
        assert sorted(s.name for s in info.seats) == sorted(names)
        assert not any(s.bot for s in info.seats), "no house player was asked for"
        check_record(client, game_id, {seat.seat: (seat, r) for seat, r in out.values()})


@needs_servers
def test_seek_refusals_raise_with_their_reason():
    with Client(SERVER) as client:
        with pytest.raises(ServiceError) as e:
            client.seek("0" * 32, "official", 4, fill_with_bots_after=0.05)
        assert e.value.reason is Reason.UNKNOWN_PLAYER_KEY
        assert e.value.status == "UNAUTHENTICATED"
        name = unique("taken")
        key = client.register(name)
        with pytest.raises(ServiceError) as e:
            client.register(name.upper())
        assert e.value.reason is Reason.NAME_TAKEN
        with pytest.raises(ServiceError) as e:
            client.seek(key, "official", 4, options=SHORT)  # rated by default
        assert e.value.reason is Reason.RATED_HOUSE_RULES
        with pytest.raises(ValueError):
            client.seek(key, "official", 4, fill_with_bots_after=-1)

    async def aio_bad_key():
        async with aio.Client(SERVER) as client:
            with pytest.raises(ServiceError) as e:
                await client.seek("f" * 32, "official", 2)
            assert e.value.reason is Reason.UNKNOWN_PLAYER_KEY

    asyncio.run(aio_bad_key())


class CuttingProxy:
    """A TCP proxy to `target` on a free loopback port, whose `cut()` closes every connection
    it carries (both ends), as a network failure would; it accepts new ones after."""

    def __init__(self, target):
        host, port = target.rsplit(":", 1)
        self.target = (host, int(port))
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.address = "127.0.0.1:%d" % self.listener.getsockname()[1]
        self.lock = threading.Lock()
        self.live = []
        self.cuts = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = socket.create_connection(self.target)
            with self.lock:
                self.live += [client, server]
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(src, dst):
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def cut(self):
        with self.lock:
            live, self.live = self.live, []
            self.cuts += 1
        for s in live:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

    def close(self):
        self.listener.close()
        self.cut()


@needs_servers
@pytest.mark.parametrize("asyncio_client", [False, True], ids=["blocking", "asyncio"])
def test_a_seat_plays_on_through_dropped_connections(asyncio_client):
    """Seat 0 reaches the server through a proxy that cuts its connection in the middle of
    its turns (right after it chose an action, which is then in flight) and between them; it
    resumes every time and the record holds each of its actions exactly once."""
    proxy = CuttingProxy(SERVER)
    try:
        with Client(SERVER) as client:
            game = client.create_game("official", 2, options=SHORT, seed=21)
            events = Events()
            greedy = Bot("greedy")
            turns = [0]

            def cut_in_turns(view, legal):
                action = greedy(view, legal)
                turns[0] += 1
                if turns[0] % 7 == 0:
                    proxy.cut()  # the action goes out on a dead connection
                return action

            def cut_between(event):
                events(event)
                if event.seq % 41 == 0:
                    proxy.cut()

            if asyncio_client:

                async def run():
                    async with aio.Client(proxy.address) as c:
                        seat = await c.join(game.game_id, 0, name="cut")
                        return seat, await seat.play(cut_in_turns, on_event=cut_between)

                box = {}
                thread = threading.Thread(target=lambda: box.update(r=asyncio.run(run())))
            else:

                def run_blocking():
                    with Client(proxy.address) as c:
                        seat = c.join(game.game_id, 0, name="cut")
                        box["r"] = (seat, seat.play(cut_in_turns, on_event=cut_between))

                box = {}
                thread = threading.Thread(target=run_blocking)
            thread.start()
            other = play_in_threads(SERVER, game.game_id, {1: Bot("greedy")})
            thread.join()
            seat, result = box["r"]
            assert proxy.cuts >= 4, proxy.cuts
            assert seat.resumes >= proxy.cuts - 1, (seat.resumes, proxy.cuts)
            assert events.seqs[-1] == client.get_game(game.game_id).seq
            check_record(client, game.game_id, {0: (seat, result), **other})
    finally:
        proxy.close()


@needs_servers
def test_the_client_waits_out_rate_limits():
    """On a server that allows a seat 20 requests a second (bursts of 40), 60 views one after
    the other, and a whole match whose seats act faster than that, all succeed: the client
    waits as long as the server says."""
    with Client(LIMITED) as client:
        game = client.create_game("official", 2, options=SHORT, seed=5)
        seats = [client.join(game.game_id, n, name=f"p{n}") for n in (0, 1)]
        views = [seats[0].view() for _ in range(60)]
        assert all(v.seat == 0 for v in views)
        assert client.rate_limited > 0, "the burst was spent and waited out"

        errors, results = [], {}

        def run(seat, bot):
            try:
                results[seat.seat] = seat.play(bot)
            except BaseException as e:
                errors.append(e)

        # Both seats on one client: one connection, each seat its own token and budget.
        threads = [
            threading.Thread(target=run, args=(seats[0], Bot("greedy"))),
            threading.Thread(target=run, args=(seats[1], Bot("random", seed=1))),
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors, errors
        assert sum(s.rate_limited for s in seats) > 0, "an action waited for the limit"
        check_record(client, game.game_id, {s.seat: (s, results[s.seat]) for s in seats})


@needs_servers
def test_refusals_raise_with_their_reason():
    with Client(SERVER) as client:
        with pytest.raises(ServiceError) as e:
            client.get_game("no-such-game")
        assert e.value.reason is Reason.GAME_NOT_FOUND and e.value.status == "NOT_FOUND"

        game = client.create_game("official", 2, seed=8)
        first = client.join(game.game_id, name="one")
        second = client.join(game.game_id, name="two")
        with pytest.raises(ServiceError) as e:
            client.join(game.game_id, name="late")
        assert e.value.reason is Reason.GAME_FULL and e.value.status == "FAILED_PRECONDITION"
        assert e.value.code == "GAME_FULL" and "GAME_FULL" in str(e.value)

        # A choice the rules refuse: the play ends with the rule's reason.
        view = first.view()
        me = first if view.to_act == first.seat else second
        with pytest.raises(ServiceError) as e:
            me.play(lambda view, legal: Action("decline"))
        assert e.value.reason is Reason.STOCK_NOT_EMPTY
        assert e.value.status == "FAILED_PRECONDITION"
        assert me.actions == []

        # A token that holds no seat.
        with pytest.raises(ServiceError) as e:
            client.seat(game.game_id, "0" * 32)
        assert e.value.reason is Reason.NOT_A_SEAT_OF_GAME
        assert e.value.status == "PERMISSION_DENIED"

    async def refused_aio():
        async with aio.Client(SERVER) as client:
            with pytest.raises(ServiceError) as e:
                await client.get_game("no-such-game")
            assert e.value.reason is Reason.GAME_NOT_FOUND
            game = await client.create_game("official", 2, seed=8)
            for _ in range(2):
                await client.join(game.game_id)
            with pytest.raises(ServiceError) as e:
                await client.join(game.game_id)
            assert e.value.reason is Reason.GAME_FULL

    asyncio.run(refused_aio())

    # The rules are the engine's before any request: an unknown option is SetupRefused.
    with Client(SERVER) as client:
        with pytest.raises(SetupRefused) as e:
            client.create_game("official", 4, options={"nope": "1"})
        assert e.value.code == "UNKNOWN_OPTION"


def test_the_reasons_are_the_protocols():
    assert [r.value for r in Reason] == _engine.reasons()
    assert [r.name for r in Reason] == _engine.reasons()
    assert Reason.parse("PILE_FROZEN") is Reason.PILE_FROZEN
    assert Reason.parse("A_REASON_OF_A_NEWER_SERVER") is None
    err = ServiceError("FAILED_PRECONDITION", "A_REASON_OF_A_NEWER_SERVER", "newer")
    assert err.reason is None and err.code == "A_REASON_OF_A_NEWER_SERVER"


class FakeSeat:
    """What PlayState reads of a seat."""

    def __init__(self):
        self.game_id, self.side, self.last_seq = "g", 0, 0
        self.actions, self.stale, self.rate_limited, self.seen = [], 0, 0, []

    def _event(self, event):
        self.seen.append(event.seq)


def test_the_play_state_resends_waits_and_skips_stale_prompts():
    """Without a server: the action in flight is sent again, under its request id, when the
    stream is opened again; a rate limit sends the same request after the server's delay; a
    stale action is dropped and the next prompt acted on; each prompt is acted on once."""
    from canasta import _net
    from canasta.v1 import game_pb2, service_pb2

    def event(seq):
        u = service_pb2.WatchGameResponse(event=game_pb2.GameEvent(seq=seq))
        u.event.turn_started.seat = 0
        return service_pb2.PlayResponse(update=u)

    def prompt(seq):
        u = service_pb2.WatchGameResponse(prompt=game_pb2.Prompt(seq=seq, seat=0))
        return service_pb2.PlayResponse(update=u)

    def result(request, seq=None, reason="", code=0, retry_ms=0):
        r = service_pb2.PlayResult(request_id=request.submit.request_id)
        if seq is not None:
            r.seq = seq
        else:
            r.error.code, r.error.reason, r.error.retry_after_ms = code, reason, retry_ms
        return service_pb2.PlayResponse(result=r)

    seat = FakeSeat()
    state = _net.PlayState(seat)
    first = state.opening()
    assert len(first) == 1 and first[0].watch.after_seq == 0
    assert state.receive(event(1)) == ("wait", None)
    todo, p = state.receive(prompt(1))
    assert todo == "act" and p.seq == 1
    sent = state.submit(p, Action("draw"))
    assert sent.submit.expected_seq == 1
    # The prompt again (a new stream): not acted on twice while the action is in flight.
    assert state.receive(prompt(1)) == ("wait", None)
    # The connection drops: the stream reopens after seq 1 with the same request.
    again = state.opening()
    assert again[0].watch.after_seq == 1 and again[1] == sent
    # Rate limited: the same request after the server's delay.
    todo, (delay, request) = state.receive(result(sent, reason="RATE_LIMITED", code=8, retry_ms=250))
    assert todo == "retry" and delay == 0.25 and request == sent and seat.rate_limited == 1
    # Applied: counted once, even if its answer comes again.
    assert state.receive(result(sent, seq=2)) == ("wait", None)
    assert state.receive(result(sent, seq=2)) == ("wait", None)
    assert seat.actions == [Action("draw")]
    # Events already seen (a replay overlapping) are skipped; a gap is refused.
    assert state.receive(event(1)) == ("wait", None) and seat.seen == [1]
    state.receive(event(2))
    todo, p = state.receive(prompt(2))
    sent = state.submit(p, Action("discard 4C"))
    # Stale: dropped, and the next prompt is acted on.
    state.receive(event(3))
    assert state.receive(result(sent, reason="STALE_SEQ", code=10)) == ("wait", None)
    assert seat.stale == 1 and seat.actions == [Action("draw")]
    todo, p = state.receive(prompt(3))
    assert todo == "act" and p.seq == 3
    sent = state.submit(p, Action("draw"))
    with pytest.raises(ServiceError) as e:
        state.receive(result(sent, reason="PILE_FROZEN", code=9))
    assert e.value.reason is Reason.PILE_FROZEN and e.value.status == "FAILED_PRECONDITION"
    with pytest.raises(ServiceError) as e:
        state.receive(event(5))
    assert e.value.status == "DATA_LOSS"
