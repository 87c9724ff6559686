#!/usr/bin/env python3
"""A Canasta bot in Python, built from the .proto files alone.

It creates a game or joins one, watches its seat's event stream, and acts whenever the stream
prompts it, choosing among the legal actions the prompt lists. A dropped stream is resumed after
the last event seen, so nothing is missed. The whole wire code is generated from
proto/canasta/v1/*.proto by grpcio-tools (see ../README.md); docs/bots.md explains the protocol.

Standard output gets two lines: `game ID seat N` once the seat is taken, and, when the match is
over, `result {...}` (JSON). The play-by-play goes to standard error.
"""

import argparse
import json
import os
import sys
import time
import uuid

import grpc  # grpcio
from google.rpc import error_details_pb2  # googleapis-common-protos: ErrorInfo, RetryInfo
from grpc_status import rpc_status  # grpcio-status: the details of an error

# The stubs generated from the .proto files: in gen/ next to this file (../README.md), or in a
# directory named by PYTHONPATH.
sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "gen"))
try:
    from canasta.v1 import cards_pb2, game_pb2, service_pb2, service_pb2_grpc
except ImportError:
    sys.exit("bot.py: the stubs are missing; generate them first (see ../README.md)")

# Errors worth retrying: the connection or the server, not the request.
RETRYABLE = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)


def log(*parts):
    print(*parts, file=sys.stderr, flush=True)


# --- Cards ----------------------------------------------------------------------------------

RANK_LABELS = {cards_pb2.RANK_JACK: "J", cards_pb2.RANK_QUEEN: "Q", cards_pb2.RANK_KING: "K",
               cards_pb2.RANK_ACE: "A", cards_pb2.RANK_JOKER: "Jk"}
SUIT_LETTERS = {cards_pb2.SUIT_CLUBS: "C", cards_pb2.SUIT_DIAMONDS: "D",
                cards_pb2.SUIT_HEARTS: "H", cards_pb2.SUIT_SPADES: "S"}


def card_text(card):
    """A card as `KS`, `10H`, `Jk`."""
    rank = RANK_LABELS.get(card.rank, str(card.rank))
    return rank + SUIT_LETTERS.get(card.suit, "")


def is_wild(card):
    return card.rank in (cards_pb2.RANK_TWO, cards_pb2.RANK_JOKER)


def is_black_three(card):
    return card.rank == cards_pb2.RANK_THREE and card.suit in (cards_pb2.SUIT_CLUBS,
                                                               cards_pb2.SUIT_SPADES)


def points(card):
    """What a card counts, melded or left in the hand (docs/rules.md)."""
    if card.rank == cards_pb2.RANK_JOKER:
        return 50
    if card.rank in (cards_pb2.RANK_TWO, cards_pb2.RANK_ACE):
        return 20
    if card.rank >= cards_pb2.RANK_EIGHT:
        return 10
    return 5


def action_text(action):
    """An action in a short text form, for the log."""
    kind = action.WhichOneof("kind")
    body = getattr(action, kind)
    if kind == "discard":
        return "discard " + card_text(body.card)
    if kind == "answer_partner":
        return "yes" if body.yes else "no"
    cards = " ".join(card_text(c) for c in cards_laid(action))
    if kind == "take_pile" and body.HasField("meld_index"):
        cards = f"onto meld {body.meld_index} {cards}"
    return f"{kind} {cards}".strip()


def cards_laid(action):
    """The hand cards an action lays on the table."""
    kind = action.WhichOneof("kind")
    if kind == "take_pile":
        specs = list(action.take_pile.melds)
        return list(action.take_pile.cards) + [c for s in specs for c in s.cards]
    if kind in ("meld", "go_out"):
        return [c for s in getattr(action, kind).melds for c in s.cards]
    return []


# --- Choosing an action ---------------------------------------------------------------------


def rank_actions(prompt, view):
    """The prompt's legal actions, best first.

    A simple player: go out when it can; take the pile rather than draw; meld naturals, and
    wild cards only for the initial meld or to complete a canasta; discard what the opponents
    can use least; answer the partner yes when its own hand costs little.
    """
    me = view.seats[prompt.seat]
    hand = list(me.hand)
    my_melds = view.sides[me.side].melds
    their_ranks = {m.rank for side in view.sides if side.side != me.side for m in side.melds}

    def score(action):
        kind = action.WhichOneof("kind")
        laid = cards_laid(action)
        wilds = sum(1 for c in laid if is_wild(c))
        if kind == "go_out":
            return 1000 + len(laid)
        if kind == "answer_partner":
            # Yes lets the partner go out: our hand then counts against us.
            small = sum(points(c) for c in hand) <= 100
            return 1 if action.answer_partner.yes == small else 0
        if kind == "take_pile":
            # Worth it unless a wild card buys a small pile.
            return 500 if wilds == 0 or len(view.pile) >= 4 else 150
        if kind == "draw_stock":
            return 200
        if kind == "meld":
            if wilds == 0 or prompt.legal.minimum_remaining > 0:
                return 300 + len(laid) - 5 * wilds
            if completes_canasta(action, my_melds):
                return 300 + len(laid)
            return 50  # a wild card spent for nothing: discard rather than this
        if kind == "discard":
            return 100 - discard_risk(action.discard.card, hand, their_ranks)
        if kind == "decline_pile":
            return 100
        return 0  # ask_partner: this bot never asks

    return sorted(prompt.legal.actions, key=score, reverse=True)


def completes_canasta(action, my_melds):
    """True if a meld action brings one of the side's melds to seven cards."""
    for spec in action.meld.melds:
        if spec.HasField("meld_index"):
            meld = my_melds[spec.meld_index]
            if len(meld.cards) < 7 <= len(meld.cards) + len(spec.cards):
                return True
    return False


def discard_risk(card, hand, their_ranks):
    """How much a discard may cost, 0 to 99: black threes are safest (they block the pile),
    wild cards and cards the opponents have melded the most dangerous, pairs are kept."""
    if is_black_three(card):
        return 0
    if is_wild(card):
        return 99
    risk = points(card)
    if card.rank in their_ranks:
        risk += 40
    if sum(1 for c in hand if c.rank == card.rank) >= 2:
        risk += 20
    return min(risk, 98)


# --- Errors ---------------------------------------------------------------------------------


def error_reason(err):
    """The stable reason of a refused call (its google.rpc.ErrorInfo), or ''."""
    try:
        status = rpc_status.from_call(err)
    except ValueError:
        return ""
    for detail in status.details if status else []:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            return info.reason
    return ""


def retry_delay(err, default):
    """The delay a RESOURCE_EXHAUSTED error asks for (its google.rpc.RetryInfo), in seconds."""
    try:
        status = rpc_status.from_call(err)
    except ValueError:
        return default
    for detail in status.details if status else []:
        if detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
            info = error_details_pb2.RetryInfo()
            detail.Unpack(info)
            return info.retry_delay.seconds + info.retry_delay.nanos / 1e9
    return default


class GiveUp(Exception):
    """The bot cannot go on (the message says why)."""


# --- Playing a seat -------------------------------------------------------------------------


class Seat:
    """One seat of one game, held by its token."""

    def __init__(self, stub, game_id, seat, token, resume_every=0):
        self.stub = stub
        self.game_id = game_id
        self.seat = seat
        self.auth = [("authorization", "Bearer " + token)]
        self.resume_every = resume_every  # drop the stream every N events (to test resuming)
        self.last_seq = 0  # the last event seen: resume after it
        self.streams = 0
        self.actions = 0
        self.refused = 0

    def play(self):
        """Plays until the match ends; returns the MatchResult."""
        failures = 0
        while True:
            self.streams += 1
            request = service_pb2.WatchGameRequest(
                game_id=self.game_id, after_seq=self.last_seq, include_actions=True)
            call = self.stub.WatchGame(request, metadata=self.auth)
            events = 0
            try:
                for message in call:
                    failures = 0
                    result = self.handle(message)
                    if result is not None:
                        call.cancel()
                        return result
                    if message.WhichOneof("kind") == "lagged":
                        break  # we fell behind: watch again after the last seq seen
                    events += message.WhichOneof("kind") == "event"
                    if self.resume_every and events >= self.resume_every:
                        call.cancel()  # drop the stream on purpose: resumed below
                        break
            except grpc.RpcError as err:
                if err.code() not in RETRYABLE + (grpc.StatusCode.CANCELLED,):
                    raise GiveUp(f"watching failed: {err.details()} ({error_reason(err)})")
                failures += 1
                if failures > 30:
                    raise GiveUp("the server keeps dropping the stream")
                time.sleep(min(0.1 * failures, 2.0))
            # The stream ended before the match did: watch again after the last event seen.

    def handle(self, message):
        """Handles one message of the watch stream; returns the result once the match ends."""
        kind = message.WhichOneof("kind")
        if kind == "event":
            event = message.event
            if event.seq != self.last_seq + 1:
                raise GiveUp(f"event {event.seq} after {self.last_seq}: one was lost or repeated")
            self.last_seq = event.seq
            return self.on_event(event)
        if kind == "prompt" and message.prompt.seq == self.last_seq:
            self.act(message.prompt)
        return None  # a heartbeat, a stale prompt, or `lagged`

    def on_event(self, event):
        kind = event.WhichOneof("kind")
        if kind == "deal_ended":
            score = event.deal_ended.score
            totals = ", ".join(f"side {s.side}: {s.total:+d} = {s.cumulative}" for s in score.sides)
            log(f"deal {score.deal + 1} ended ({totals})")
        elif kind == "match_ended":
            return event.match_ended.result
        elif kind == "game_started":
            log("every seat is taken: the match begins")
        return None

    def act(self, prompt):
        """Chooses and submits an action for a prompt."""
        if prompt.HasField("time_left_ms") and prompt.time_left_ms < 1000:
            log(f"hurry: {prompt.time_left_ms} ms left")
        request = service_pb2.GetViewRequest(game_id=self.game_id)
        view = self.call(self.stub.GetView, request).view
        for action in rank_actions(prompt, view):
            try:
                self.submit(prompt.seq, action)
                self.actions += 1
                log(f"seat {self.seat}: {action_text(action)}")
                return
            except grpc.RpcError as err:
                reason = error_reason(err)
                if err.code() == grpc.StatusCode.ABORTED:
                    return  # STALE_SEQ: the game moved on; the stream brings a new prompt
                if reason in ("GAME_FINISHED", "MATCH_OVER", "NOT_YOUR_TURN", "WRONG_PHASE"):
                    return  # not our move after all: the stream says what happened
                if err.code() != grpc.StatusCode.FAILED_PRECONDITION:
                    raise GiveUp(f"{action_text(action)} refused: {err.details()} ({reason})")
                # A rule refused it (the message says why): try the next best.
                self.refused += 1
                log(f"{action_text(action)} refused: {err.details()} ({reason})")
        raise GiveUp("every listed action was refused")

    def submit(self, seq, action):
        """Submits an action; a retry after a transport failure reuses the request id, so the
        action is applied once."""
        request = service_pb2.SubmitActionRequest(
            game_id=self.game_id, expected_seq=seq, request_id=uuid.uuid4().hex, action=action)
        return self.call(self.stub.SubmitAction, request)

    def call(self, method, request):
        """A unary call with the seat's token, retried while the server is unavailable or
        asks us to slow down."""
        for attempt in range(1, 11):
            try:
                return method(request, metadata=self.auth, timeout=10)
            except grpc.RpcError as err:
                if err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED:
                    time.sleep(retry_delay(err, 0.5))
                elif err.code() in RETRYABLE and attempt < 10:
                    time.sleep(0.1 * attempt)
                else:
                    raise
        raise GiveUp("the server stays unavailable")


# --- Creating and joining -------------------------------------------------------------------


def create_game(stub, args):
    """Creates a game from the command line's rules; returns its id."""
    rules = game_pb2.RuleSet(
        preset=game_pb2.Preset.Value("PRESET_" + args.preset.upper()),
        player_count=args.players,
        options=dict(o.split("=", 1) for o in args.option))
    request = service_pb2.CreateGameRequest(rules=rules)
    if args.seed is not None:
        request.seed = args.seed
    if args.move_budget_ms:
        request.time_control.move_budget_ms = args.move_budget_ms
        request.time_control.policy = game_pb2.TIMEOUT_POLICY_FALLBACK_MOVE
    return stub.CreateGame(request).game.game_id


def join_game(stub, game_id, seat, name):
    """Takes a seat (the lowest free one if `seat` is None); returns (seat, token)."""
    request = service_pb2.JoinGameRequest(game_id=game_id, display_name=name)
    if seat is not None:
        request.seat = seat
    response = stub.JoinGame(request)
    return response.seat, response.token


def whoami(stub, game_id, token):
    """The seat a token holds, and its side."""
    request = service_pb2.GetViewRequest(game_id=game_id)
    view = stub.GetView(request, metadata=[("authorization", "Bearer " + token)]).view
    return view.viewer_seat, view.seats[view.viewer_seat].side


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--server", default=os.environ.get("CANASTA_SERVER", "127.0.0.1:50051"),
                        help="the server's address (env CANASTA_SERVER)")
    parser.add_argument("--create", action="store_true", help="create a game and take a seat")
    parser.add_argument("--game", help="the game to join")
    parser.add_argument("--seat", type=int, help="the seat to take (default: the lowest free)")
    parser.add_argument("--token", default=os.environ.get("CANASTA_TOKEN"),
                        help="play a seat already joined, by its token (env CANASTA_TOKEN)")
    parser.add_argument("--name", default="python bot", help="the display name")
    parser.add_argument("--preset", default="official", help="official, wiener, samba, swiss")
    parser.add_argument("--players", type=int, default=4, help="players of a new game")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help="a rule option of a new game (repeatable), e.g. target_score=1000")
    parser.add_argument("--seed", type=int, help="the seed of a new game")
    parser.add_argument("--move-budget-ms", type=int, default=0,
                        help="time per move in a new game (fallback move on time-out)")
    parser.add_argument("--resume-every", type=int, default=0, metavar="N",
                        help="drop the event stream every N events and resume it (a test)")
    args = parser.parse_args()
    if args.create == bool(args.game):
        parser.error("give either --create or --game ID")

    stub = service_pb2_grpc.CanastaServiceStub(grpc.insecure_channel(args.server))
    try:
        game_id = create_game(stub, args) if args.create else args.game
        token = args.token or join_game(stub, game_id, args.seat, args.name)[1]
        seat, side = whoami(stub, game_id, token)
        print(f"game {game_id} seat {seat}", flush=True)
        player = Seat(stub, game_id, seat, token, args.resume_every)
        result = player.play()
    except grpc.RpcError as err:
        sys.exit(f"bot.py: {err.details()} ({error_reason(err) or err.code().name})")
    except GiveUp as err:
        sys.exit(f"bot.py: {err}")

    winner = result.winner_side if result.HasField("winner_side") else None
    log(f"match over: side {winner} won, totals {list(result.totals)}; we are side {side}")
    print("result " + json.dumps({
        "game_id": game_id,
        "seat": seat,
        "side": side,
        "winner_side": winner,
        "totals": list(result.totals),
        "won": winner == side,
        "actions": player.actions,
        "refused": player.refused,
        "streams": player.streams,
    }), flush=True)


if __name__ == "__main__":
    main()
