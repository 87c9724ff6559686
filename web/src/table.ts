// The table as a view shows it: every side's melds, the pile and the stock, every seat with its
// hand (its cards where the view shows them, else their count), red threes and scores. Shared by
// the live table and the replay.

import type { Card } from "./gen/canasta/v1/cards_pb.js";
import { CanastaKind, GameStatus, MeldKind, Phase, type GameView, type SeatView, type TableMeld } from "./gen/canasta/v1/game_pb.js";
import { backElement, cardElement, grouped, rankWord } from "./cards.js";
import { h } from "./dom.js";
import type { SeatNamer } from "./words.js";

/** A seat's name as the view gives it. */
export function namer(view: GameView | undefined): SeatNamer {
  return (seat: number) => seatName(view?.seats.find((x) => x.seat === seat), seat);
}

/** A seat's name: its player's, or for one of the server's bots the seat and the bot (the bots
 * of a game may share a name). */
export function seatName(s: SeatView | undefined, seat: number): string {
  if (s?.bot) return `Seat ${seat + 1} (${s.bot})`;
  return s?.displayName || `Seat ${seat + 1}`;
}

const CANASTA_WORD: Record<number, string> = {
  [CanastaKind.NATURAL]: "natural canasta",
  [CanastaKind.MIXED]: "mixed canasta",
  [CanastaKind.SAMBA]: "samba",
  [CanastaKind.WILD_JOKERS]: "wild canasta (jokers)",
  [CanastaKind.WILD_DEUCES]: "wild canasta (twos)",
  [CanastaKind.WILD_MIXED]: "wild canasta",
};

/** A meld's title: its rank or kind, and its canasta state. */
export function meldTitle(m: TableMeld): string {
  const what = m.kind === MeldKind.BLACK_THREES ? "black threes" : m.kind === MeldKind.WILD ? "wild cards" : m.kind === MeldKind.SEQUENCE ? `sequence` : rankWord(m.rank, 2);
  const state = m.canasta !== CanastaKind.UNSPECIFIED ? CANASTA_WORD[m.canasta] ?? "canasta" : `${m.cards.length} cards`;
  return `${what}: ${state}`;
}

/** Options of the table's drawing. */
export interface TableOptions {
  /** A meld is clickable (to add the selected cards to it). */
  onMeld?: (m: TableMeld) => void;
  /** The melds that may take cards now. */
  addable?: readonly number[];
  /** The hand of the viewer's seat is drawn by the caller (the live table's own hand). */
  ownHand?: number;
  /** Time left to the seat to act, in words. */
  clock?: string;
}

/** The table of `view`. */
export function tableElement(view: GameView, opts: TableOptions = {}): HTMLElement {
  const name = namer(view);
  const top = view.pile.length ? view.pile[view.pile.length - 1] : undefined;
  const centre = h("div", { class: "centre" },
    h("div", { class: "stock", attrs: { "data-test": "stock" } },
      h("div", { class: "label", text: "Stock" }),
      backElement(String(view.stockCount))),
    h("div", { class: "pile", attrs: { "data-test": "pile" } },
      h("div", { class: "label", text: `Pile (${view.pile.length})` }),
      top ? cardElement(top, "top") : h("span", { class: "card empty", text: "empty" }),
      view.pileFrozen ? h("span", { class: "badge frozen", text: "frozen" }) : null,
      view.pileBlocked ? h("span", { class: "badge blocked", text: "blocked" }) : null),
    h("div", { class: "status" },
      h("div", { text: statusLine(view) }),
      opts.clock ? h("div", { class: "clock", text: opts.clock, attrs: { "data-test": "clock" } }) : null));
  const sides = view.sides.map((side) => {
    const melds = side.melds.map((m) => {
      const addable = opts.addable?.includes(m.index) ?? false;
      const el = h("div", { class: `meld${m.canasta !== CanastaKind.UNSPECIFIED ? " canasta" : ""}${m.canasta === CanastaKind.NATURAL ? " natural" : ""}${addable ? " addable" : ""}`, title: meldTitle(m), attrs: { "data-test": "meld", "data-index": String(m.index), "data-rank": String(m.rank) } },
        h("div", { class: "meld-title", text: meldTitle(m) }),
        h("div", { class: "cards" }, ...m.cards.map((c) => cardElement(c, "small"))));
      if (addable && opts.onMeld) {
        el.tabIndex = 0;
        el.addEventListener("click", () => opts.onMeld?.(m));
      }
      return el;
    });
    const members = side.seats.map(name).join(" & ");
    return h("section", { class: "side", attrs: { "data-test": "side" } },
      h("h2", {}, `Side ${side.side + 1}`, h("span", { class: "members", text: ` ${members}` })),
      h("div", { class: "side-facts" },
        h("span", { text: `score ${side.score}` }),
        h("span", { text: side.melded ? "has melded" : `needs ${side.minimum} to meld` }),
        side.penalties ? h("span", { text: `penalties ${side.penalties}` }) : null),
      h("div", { class: "melds" }, ...(melds.length ? melds : [h("span", { class: "none", text: "no melds" })])));
  });
  const seats = view.seats.map((s) => seatElement(view, s, opts.ownHand));
  return h("div", { class: "table" },
    h("div", { class: "seats" }, ...seats),
    centre,
    h("div", { class: "sides" }, ...sides));
}

function statusLine(view: GameView): string {
  const name = namer(view);
  if (view.status === GameStatus.WAITING) return "Waiting for players";
  if (view.status === GameStatus.FINISHED) return `Finished after ${view.dealsPlayed} deal${view.dealsPlayed === 1 ? "" : "s"}`;
  const phase: Record<number, string> = {
    [Phase.DRAW]: "to draw",
    [Phase.PLAY]: "to meld or discard",
    [Phase.ANSWER]: "to answer",
    [Phase.OVER]: "",
  };
  const who = view.toAct === undefined ? "" : `${name(view.toAct)} ${phase[view.phase] ?? "to act"}`;
  return `Deal ${view.deal + 1}, dealer ${name(view.dealer)}${who ? `: ${who}` : ""}`;
}

function seatElement(view: GameView, s: SeatView, ownHand?: number): HTMLElement {
  const acting = view.toAct === s.seat;
  const hand = s.seat === ownHand
    ? null
    : s.hand.length
      ? handElement(s.hand, "small")
      : h("div", { class: "hand hidden" }, ...Array.from({ length: Math.min(s.handCount, 15) }, () => backElement()));
  return h("div", { class: `seat${acting ? " acting" : ""}${view.viewerSeat === s.seat ? " mine" : ""}`, attrs: { "data-test": "seat", "data-seat": String(s.seat) } },
    h("div", { class: "seat-head" },
      h("strong", { text: seatName(s, s.seat) }),
      h("span", { text: ` side ${s.side + 1}${s.bot ? " · the server's bot" : ""} · ${s.handCount} card${s.handCount === 1 ? "" : "s"}${acting ? " · to act" : ""}${s.occupied ? "" : " · free"}` })),
    s.redThrees.length ? h("div", { class: "red-threes", title: "red threes" }, ...s.redThrees.map((c) => cardElement(c, "small"))) : null,
    hand);
}

/** A hand drawn sorted, grouped by rank; `extra` classes each card; `onCard` makes them clickable. */
export function handElement(cards: readonly Card[], extra = "", onCard?: (index: number, el: HTMLElement) => void, selected?: ReadonlySet<number>, used?: ReadonlySet<number>): HTMLElement {
  const el = h("div", { class: "hand", attrs: { "data-test": "hand" } });
  let index = 0;
  for (const group of grouped(cards)) {
    const g = h("span", { class: "group" });
    for (const c of group) {
      const i = index++;
      const classes = [extra, selected?.has(i) ? "selected" : "", used?.has(i) ? "used" : ""].filter(Boolean).join(" ");
      const card = cardElement(c, classes);
      card.dataset.index = String(i);
      if (onCard && !used?.has(i)) {
        card.tabIndex = 0;
        card.setAttribute("role", "button");
        card.addEventListener("click", () => onCard(i, card));
        card.addEventListener("keydown", (e) => {
          if (e.key === "Enter" || e.key === " ") {
            e.preventDefault();
            onCard(i, card);
          }
        });
      }
      g.append(card);
    }
    el.append(g);
  }
  return el;
}
