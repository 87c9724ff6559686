#!/usr/bin/env python3
"""A Canasta bot on the `canasta` Python package: the package's client plays the seat, and
`choose` picks each action (here a built-in bot's choice; put your own strategy there).

Install the package with its client once (`pip install './python[client]'` from the repository's
root). Standard output gets `game ID seat N` once the seat is taken and `result {...}` (JSON)
when the match is over (once per game with --seek); the moves go to standard error.
docs/bots.md explains the protocol.

With --seek the bot needs no game id: as a registered player (`canasta register NAME --key-file
FILE`; the key from --key-file or CANASTA_KEY) it finds --games games through the server's
matchmaking, one after the other.
"""

import argparse
import json
import os
import sys

from canasta import Bot, CanastaError
from canasta.client import Client, load_key


def make_choose(bot):
    """choose(view, legal) -> action: `view` is the seat's canasta.View, `legal` its legal
    actions (canasta.Action). Replace the bot's choice with your own."""

    def choose(view, legal):
        action = bot(view, legal)
        print(f"seat {view.seat}: {action}", file=sys.stderr, flush=True)
        return action

    return choose


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
    parser.add_argument("--bot", default="greedy", help="the built-in bot that chooses")
    parser.add_argument("--seek", action="store_true",
                        help="find games through matchmaking, as the player of --key-file")
    parser.add_argument("--key-file", help="the player's key file (default: env CANASTA_KEY)")
    parser.add_argument("--games", type=int, default=1, help="games to play with --seek")
    parser.add_argument("--fill-with-bots-after", type=int, metavar="MS",
                        help="with --seek: house players take the seats empty after MS ms")
    args = parser.parse_args()
    if [args.create, bool(args.game), args.seek].count(True) != 1:
        parser.error("give one of --create, --game ID and --seek")

    try:
        with Client(args.server) as client:
            if args.seek:
                return seek(client, args)
            if args.create:
                options = dict(o.split("=", 1) for o in args.option)
                game_id = client.create_game(args.preset, args.players, options=options,
                                             seed=args.seed,
                                             move_budget_ms=args.move_budget_ms).game_id
            else:
                game_id = args.game
            if args.token:
                seat = client.seat(game_id, args.token)
            else:
                seat = client.join(game_id, args.seat, name=args.name)
            print(f"game {game_id} seat {seat.seat}", flush=True)
            result = seat.play(make_choose(Bot(args.bot, seed=args.seed or 0)))
    except (CanastaError, ValueError) as err:
        sys.exit(f"bot.py: {err}")

    report(seat, result)


def seek(client, args):
    """Plays --games games found through matchmaking, one after the other."""
    key = load_key(args.key_file)
    options = dict(o.split("=", 1) for o in args.option)
    fill = args.fill_with_bots_after / 1000 if args.fill_with_bots_after else None
    for _ in range(args.games):
        seat = client.seek(key, args.preset, args.players, options=options,
                           rated=False if options else None,
                           move_budget_ms=args.move_budget_ms, fill_with_bots_after=fill)
        print(f"game {seat.game_id} seat {seat.seat}", flush=True)
        report(seat, seat.play(make_choose(Bot(args.bot, seed=args.seed or 0))))


def report(seat, result):
    print("result " + json.dumps({
        "game_id": seat.game_id, "seat": seat.seat, "side": seat.side,
        "winner_side": result.winner, "totals": list(result.totals), "won": result.won,
        "actions": len(seat.actions), "streams": seat.resumes + 1,
    }), flush=True)


if __name__ == "__main__":
    main()
