// Cards: their names, their order in a hand, and their drawing as DOM elements.

import { type Card, Rank, Suit } from "./gen/canasta/v1/cards_pb.js";

const RANK_LABEL: Record<number, string> = {
  [Rank.TWO]: "2", [Rank.THREE]: "3", [Rank.FOUR]: "4", [Rank.FIVE]: "5", [Rank.SIX]: "6",
  [Rank.SEVEN]: "7", [Rank.EIGHT]: "8", [Rank.NINE]: "9", [Rank.TEN]: "10", [Rank.JACK]: "J",
  [Rank.QUEEN]: "Q", [Rank.KING]: "K", [Rank.ACE]: "A", [Rank.JOKER]: "Joker",
};

const RANK_WORD: Record<number, string> = {
  [Rank.TWO]: "two", [Rank.THREE]: "three", [Rank.FOUR]: "four", [Rank.FIVE]: "five",
  [Rank.SIX]: "six", [Rank.SEVEN]: "seven", [Rank.EIGHT]: "eight", [Rank.NINE]: "nine",
  [Rank.TEN]: "ten", [Rank.JACK]: "jack", [Rank.QUEEN]: "queen", [Rank.KING]: "king",
  [Rank.ACE]: "ace", [Rank.JOKER]: "joker",
};

const SUIT_SYMBOL: Record<number, string> = {
  [Suit.CLUBS]: "♣", [Suit.DIAMONDS]: "♦", [Suit.HEARTS]: "♥", [Suit.SPADES]: "♠",
};

/** Whether a card is wild (a two or a joker). */
export function isWild(c: Card): boolean {
  return c.rank === Rank.TWO || c.rank === Rank.JOKER;
}

/** Whether a card is red (hearts, diamonds). */
export function isRed(c: Card): boolean {
  return c.suit === Suit.HEARTS || c.suit === Suit.DIAMONDS;
}

/** A card's short name: "7♥", "Joker". */
export function cardName(c: Card): string {
  if (c.rank === Rank.JOKER) return "Joker";
  return `${RANK_LABEL[c.rank] ?? "?"}${SUIT_SYMBOL[c.suit] ?? ""}`;
}

/** A list of cards in words: "7♥ 7♠ Joker". */
export function cardsName(cards: readonly Card[]): string {
  return cards.map(cardName).join(" ");
}

/** A rank in words, plural if `n` is not 1. */
export function rankWord(rank: Rank, n = 1): string {
  const w = RANK_WORD[rank] ?? "card";
  return n === 1 ? w : w === "six" ? "sixes" : `${w}s`;
}

/** The order of a hand: naturals by rank (ace high), then threes, then wilds; suits within. */
function sortKey(c: Card): number {
  const group = isWild(c) ? 2 : c.rank === Rank.THREE ? 1 : 0;
  return group * 1000 + c.rank * 10 + c.suit;
}

/** A sorted copy of `cards`. */
export function sorted(cards: readonly Card[]): Card[] {
  return [...cards].sort((a, b) => sortKey(a) - sortKey(b));
}

/** The cards grouped as a hand shows them: by rank for naturals, threes and wilds apart. */
export function grouped(cards: readonly Card[]): Card[][] {
  const groups: Card[][] = [];
  let key = "";
  for (const c of sorted(cards)) {
    const k = isWild(c) ? "wild" : String(c.rank);
    if (k !== key || groups.length === 0) {
      groups.push([]);
      key = k;
    }
    groups[groups.length - 1].push(c);
  }
  return groups;
}

/** A card drawn as an element: rank and suit in its corners, coloured by suit. */
export function cardElement(c: Card, extra = ""): HTMLElement {
  const el = document.createElement("span");
  const colour = c.rank === Rank.JOKER ? "joker" : isRed(c) ? "red" : "black";
  el.className = `card ${colour} ${extra}`.trim();
  el.dataset.rank = String(c.rank);
  el.dataset.suit = String(c.suit);
  el.setAttribute("aria-label", cardName(c));
  el.title = cardName(c);
  const label = c.rank === Rank.JOKER ? "JK" : RANK_LABEL[c.rank] ?? "?";
  const suit = c.rank === Rank.JOKER ? "★" : SUIT_SYMBOL[c.suit] ?? "";
  const top = document.createElement("span");
  top.className = "corner";
  top.textContent = label;
  const mid = document.createElement("span");
  mid.className = "pip";
  mid.textContent = suit;
  el.append(top, mid);
  return el;
}

/** A card's back (for the stock, or a hand not shown). */
export function backElement(label = ""): HTMLElement {
  const el = document.createElement("span");
  el.className = "card back";
  if (label) {
    const l = document.createElement("span");
    l.className = "count";
    l.textContent = label;
    el.append(l);
  }
  return el;
}

/** Whether two cards are the same kind. */
export function sameCard(a: Card, b: Card): boolean {
  return a.rank === b.rank && a.suit === b.suit;
}
