// The events of a game, and its scores, in words for the log and the score reports.

import type { DealScore, GameEvent, Placed } from "./gen/canasta/v1/game_pb.js";
import {
  DealEndKind, MatchEndKind, RedThreeSource, TimeoutPolicy, type MatchResult,
} from "./gen/canasta/v1/game_pb.js";
import { cardName, cardsName } from "./cards.js";

/** Names a seat: its player's name, or "Seat N". */
export type SeatNamer = (seat: number) => string;

function placedWords(placed: readonly Placed[]): string {
  return placed
    .map((p) => `${cardsName(p.cards)} ${p.newMeld ? "as a new meld" : "added to a meld"}`)
    .join("; ");
}

/** An event in words; empty for events the log leaves out (turns). */
export function eventWords(e: GameEvent, name: SeatNamer): string {
  const k = e.kind;
  switch (k.case) {
    case "seatJoined":
      return `${k.value.displayName || `Seat ${k.value.seat + 1}`} took seat ${k.value.seat + 1}.`;
    case "seatLeft":
      return `${name(k.value.seat)} left.`;
    case "gameStarted":
      return "The game starts.";
    case "dealStarted": {
      const d = k.value;
      return `Deal ${d.deal + 1}: ${name(d.dealer)} deals; ${d.stockCount} cards in the stock, ${d.pile.length ? cardName(d.pile[d.pile.length - 1]) : "nothing"} turned up.`;
    }
    case "turnStarted":
      return "";
    case "redThreeLaid": {
      const how = k.value.source === RedThreeSource.DEALT ? "dealt" : k.value.source === RedThreeSource.PILE ? "from the pile" : "drawn";
      return `${name(k.value.seat)} lays a red three (${k.value.card ? cardName(k.value.card) : "?"}, ${how}).`;
    }
    case "drew":
      return k.value.cards.length
        ? `${name(k.value.seat)} draws ${cardsName(k.value.cards)}.`
        : `${name(k.value.seat)} draws ${k.value.count === 1 ? "a card" : `${k.value.count} cards`}.`;
    case "pileTaken":
      return `${name(k.value.seat)} takes the pile with ${k.value.top ? cardName(k.value.top) : "?"} on top (${k.value.pickedUp.length} cards): ${placedWords(k.value.placed)}.`;
    case "melded":
      return `${name(k.value.seat)} melds ${placedWords(k.value.placed)}.`;
    case "discarded": {
      const d = k.value;
      const notes = [d.frozen ? "the pile is frozen" : "", d.blocks ? "it blocks the pile for the next player" : ""].filter(Boolean);
      return `${name(d.seat)} discards ${d.card ? cardName(d.card) : "?"}${notes.length ? ` (${notes.join(", ")})` : ""}.`;
    }
    case "askedPartner":
      return `${name(k.value.seat)} asks ${name(k.value.partner)}: may I go out?`;
    case "partnerAnswered":
      return `${name(k.value.seat)} answers ${k.value.yes ? "yes" : "no"}.`;
    case "penalty":
      return `Side ${k.value.side + 1} is penalised ${k.value.points} points: ${k.value.reason}.`;
    case "wentOut":
      return `${name(k.value.seat)} goes out${k.value.concealed ? " concealed" : ""}${k.value.placed.length ? ` laying ${placedWords(k.value.placed)}` : ""}${k.value.discard ? `, discarding ${cardName(k.value.discard)}` : ""}.`;
    case "pileDeclined":
      return `${name(k.value.seat)} declines the pile.`;
    case "dealEnded":
      return k.value.score ? `Deal ${k.value.score.deal + 1} ends: ${dealEndWords(k.value.score, name)}. ${k.value.score.sides.map((s) => `Side ${s.side + 1}: ${s.total} (total ${s.cumulative})`).join(", ")}.` : "The deal ends.";
    case "matchEnded":
      return k.value.result ? resultWords(k.value.result) : "The match ends.";
    case "timedOut":
      return `${name(k.value.seat)} ran out of time: ${k.value.policy === TimeoutPolicy.FORFEIT ? "the side forfeits" : "a safe move was played"}.`;
    default:
      return "";
  }
}

/** How a deal ended, in words. */
export function dealEndWords(d: DealScore, name: SeatNamer): string {
  switch (d.end) {
    case DealEndKind.WENT_OUT:
      return `${name(d.seat)} went out${d.concealed ? " concealed" : ""}`;
    case DealEndKind.STOCK_EXHAUSTED:
      return "the stock ran out";
    case DealEndKind.LAST_RED_THREE:
      return "the last card of the stock was a red three";
    default:
      return "it ended";
  }
}

/** A match result in words. */
export function resultWords(r: MatchResult): string {
  const totals = r.totals.map((t, i) => `side ${i + 1} ${t}`).join(", ");
  const winner = r.winnerSide === undefined ? "nobody wins" : `side ${r.winnerSide + 1} wins`;
  const how: Record<number, string> = {
    [MatchEndKind.TARGET]: "the target is reached",
    [MatchEndKind.FORFEIT]: `side ${(r.forfeitedSide ?? 0) + 1} forfeited`,
    [MatchEndKind.ABANDONED]: "the game was abandoned",
    [MatchEndKind.EXPIRED]: "nobody joined in time",
    [MatchEndKind.CANCELLED]: "its creator cancelled it",
  };
  return `The match is over (${how[r.end] ?? "ended"}): ${winner}; ${totals}.`;
}

/** A deal's score report as a table element. */
export function scoreTable(d: DealScore, name: SeatNamer): HTMLElement {
  const wrap = document.createElement("div");
  wrap.className = "score-report";
  const title = document.createElement("h3");
  title.textContent = `Deal ${d.deal + 1}: ${dealEndWords(d, name)}`;
  const table = document.createElement("table");
  const rows: [string, (i: number) => string][] = [
    ["Melded cards", (i) => String(d.sides[i].meldedCards)],
    ["Canastas (natural / mixed / samba / wild)", (i) => `${d.sides[i].naturalCanastas} / ${d.sides[i].mixedCanastas} / ${d.sides[i].sambas} / ${d.sides[i].wildCanastas}`],
    ["Canasta bonus", (i) => String(d.sides[i].canastaBonus)],
    ["Red threes", (i) => `${d.sides[i].redThrees} (${d.sides[i].redThreeBonus})`],
    ["Going out", (i) => String(d.sides[i].goingOutBonus)],
    ["Cards in hand", (i) => String(d.sides[i].cardsInHand)],
    ["Penalties", (i) => String(d.sides[i].penalties)],
    ["Deal total", (i) => String(d.sides[i].total)],
    ["Match total", (i) => String(d.sides[i].cumulative)],
  ];
  const head = document.createElement("tr");
  head.append(th(""), ...d.sides.map((s) => th(`Side ${s.side + 1}`)));
  table.append(head);
  for (const [label, value] of rows) {
    const tr = document.createElement("tr");
    tr.append(th(label), ...d.sides.map((_, i) => td(value(i))));
    table.append(tr);
  }
  wrap.append(title, table);
  return wrap;
}

function th(text: string): HTMLElement {
  const e = document.createElement("th");
  e.textContent = text;
  return e;
}

function td(text: string): HTMLElement {
  const e = document.createElement("td");
  e.textContent = text;
  return e;
}
