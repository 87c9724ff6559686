// A game live: the table from WatchGame (with a GetView after each change), the log in words,
// and, for the seat this tab holds, the controls its prompt's legal choices allow.

import { Code, ConnectError } from "@connectrpc/connect";
import type { Card } from "./gen/canasta/v1/cards_pb.js";
import { Rank } from "./gen/canasta/v1/cards_pb.js";
import type { ActionSchema, MeldSpecSchema } from "./gen/canasta/v1/actions_pb.js";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { GameStatus, Phase, type GameView, type LegalChoices, type TableMeld, type TakeOption } from "./gen/canasta/v1/game_pb.js";
import { api, as, creatorToken, dropSeat, errorText, heldSeat, holdSeat, requestId, type HeldSeat } from "./api.js";
import { cardsName, cardName, isWild, rankWord, sorted } from "./cards.js";
import { button, h, replace } from "./dom.js";
import { handElement, meldTitle, seatName, tableElement } from "./table.js";
import { eventWords, scoreTable, resultWords } from "./words.js";

type ActionInit = MessageInitShape<typeof ActionSchema>;
type MeldInit = MessageInitShape<typeof MeldSpecSchema>;

/** A meld the player has put together but not laid yet: new (no index) or an addition. */
interface Staged {
  meldIndex?: number;
  /** Indices into the sorted hand. */
  cards: number[];
}

/** Shows game `gameId` in `root` until `signal` aborts; `watchOnly` never acts for a seat. */
export function showGame(root: HTMLElement, gameId: string, watchOnly: boolean, signal: AbortSignal): void {
  const game = new LiveGame(root, gameId, watchOnly ? undefined : heldSeat(gameId), signal);
  void game.run();
}

class LiveGame {
  private view?: GameView;
  private legal?: LegalChoices;
  private deadline?: number;
  private lastSeq = 0n;
  /** The names the seats joined with, as the events tell them (the view may be older). */
  private joined = new Map<number, string>();
  private log: string[] = [];
  private selected = new Set<number>();
  private staged: Staged[] = [];
  private message = "";
  private messageIsError = false;
  private refreshing = false;
  private refreshAgain = false;
  private busy = false;
  private readonly body = h("div", { class: "game-body" });
  private readonly logList = h("ol", { class: "log", attrs: { "data-test": "log", "aria-live": "polite" } });
  private readonly connection = h("span", { class: "connection" });

  constructor(root: HTMLElement, private gameId: string, private held: HeldSeat | undefined, private signal: AbortSignal) {
    const title = h("h1", {}, h("a", { text: "Canasta", attrs: { href: "#/" } }), ` · game ${gameId}`);
    const role = h("span", { class: "role", attrs: { "data-test": "role" }, text: held ? `You play seat ${held.seat + 1}` : "Watching as a spectator" });
    replace(root, h("header", { class: "bar" }, title, role, this.connection),
      h("main", { class: "game" }, this.body, h("aside", { class: "side-panel" }, h("h2", { text: "Events" }), this.logList)));
    const tick = setInterval(() => this.tickClock(), 250);
    signal.addEventListener("abort", () => clearInterval(tick));
  }

  /** Watches the game to its end, resuming after the last event seen when the stream drops. */
  async run(): Promise<void> {
    await this.refresh();
    let failures = 0;
    while (!this.signal.aborted) {
      try {
        this.setConnection("live");
        const stream = api.watchGame(
          { gameId: this.gameId, afterSeq: this.lastSeq, includeView: true, includeActions: false },
          { ...as(this.held?.token), signal: this.signal },
        );
        for await (const msg of stream) {
          failures = 0;
          const k = msg.kind;
          if (k.case === "event") {
            if (k.value.seq <= this.lastSeq) continue;
            this.lastSeq = k.value.seq;
            if (k.value.kind.case === "seatJoined") this.joined.set(k.value.kind.value.seat, k.value.kind.value.displayName);
            const words = eventWords(k.value, this.name);
            if (words) this.addLog(words);
            void this.refresh();
          } else if (k.case === "prompt") {
            if (k.value.view && (!this.view || k.value.view.seq >= this.view.seq)) {
              this.view = k.value.view;
              this.legal = k.value.legal;
              this.setDeadline(k.value.timeLeftMs);
              this.render();
            }
          } else if (k.case === "lagged") {
            break;
          }
        }
        if (this.view?.status === GameStatus.FINISHED || this.signal.aborted) {
          this.setConnection("the game is over");
          return;
        }
      } catch (e) {
        if (this.signal.aborted) return;
        if (e instanceof ConnectError && (e.code === Code.NotFound || e.code === Code.PermissionDenied || e.code === Code.Unauthenticated || e.code === Code.InvalidArgument)) {
          this.show(errorText(e), true);
          if (e.code !== Code.NotFound && this.held) {
            // The token no longer holds the seat: watch as anyone.
            dropSeat(this.gameId);
            this.held = undefined;
            continue;
          }
          return;
        }
        failures++;
        this.setConnection(`reconnecting (${errorText(e)})`);
      }
      // Resumes after the last event seen: nothing is lost, nothing shown twice.
      await new Promise((r) => setTimeout(r, Math.min(5000, 250 * 2 ** Math.min(failures, 5))));
    }
  }

  /** A seat's name: as the view shows it, else as it joined. */
  private name = (seat: number): string => {
    const shown = this.view?.seats.find((s) => s.seat === seat);
    if (shown?.bot || shown?.displayName) return seatName(shown, seat);
    return this.joined.get(seat) || `Seat ${seat + 1}`;
  };

  private setConnection(text: string): void {
    this.connection.textContent = text;
    this.connection.dataset.state = text;
  }

  private addLog(words: string): void {
    this.log.push(words);
    const li = h("li", { text: words });
    this.logList.append(li);
    // Bounded: the page keeps the last 500 lines.
    while (this.logList.childElementCount > 500) this.logList.firstElementChild?.remove();
    li.scrollIntoView?.({ block: "nearest" });
  }

  /** The view (and the seat's choices) fetched again; calls coalesce while one is in flight. */
  private async refresh(): Promise<void> {
    if (this.refreshing) {
      this.refreshAgain = true;
      return;
    }
    this.refreshing = true;
    try {
      do {
        this.refreshAgain = false;
        const r = await api.getView({ gameId: this.gameId, includeActions: false }, { ...as(this.held?.token), signal: this.signal });
        if (r.view && (!this.view || r.view.seq >= this.view.seq)) {
          const turnChanged = this.view?.toAct !== r.view.toAct || this.view?.phase !== r.view.phase;
          this.view = r.view;
          this.legal = r.legal;
          this.setDeadline(r.timeLeftMs);
          if (turnChanged) this.clearChoice();
          this.render();
        }
      } while (this.refreshAgain && !this.signal.aborted);
    } catch (e) {
      if (!this.signal.aborted) this.show(errorText(e), true);
    } finally {
      this.refreshing = false;
    }
  }

  private setDeadline(ms: bigint | undefined): void {
    this.deadline = ms === undefined ? undefined : performance.now() + Number(ms);
  }

  private clock(): string | undefined {
    if (this.deadline === undefined || !this.legal) return undefined;
    const left = Math.max(0, this.deadline - performance.now());
    const s = Math.ceil(left / 1000);
    return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")} left to act`;
  }

  private tickClock(): void {
    const el = this.body.querySelector<HTMLElement>("[data-test=clock]");
    const text = this.clock();
    if (el && text) el.textContent = text;
  }

  private show(message: string, error: boolean): void {
    this.message = message;
    this.messageIsError = error;
    const el = this.body.querySelector<HTMLElement>(".message");
    if (el) {
      el.textContent = message;
      el.classList.toggle("error", error);
    } else {
      this.render();
    }
  }

  private clearChoice(): void {
    this.selected.clear();
    this.staged = [];
  }

  private myHand(): Card[] {
    const me = this.view?.seats.find((s) => s.seat === this.view?.viewerSeat);
    return sorted(me?.hand ?? []);
  }

  private usedIndices(): Set<number> {
    return new Set(this.staged.flatMap((s) => s.cards));
  }

  private render(): void {
    const view = this.view;
    if (!view) return;
    const legal = this.legal;
    const parts: (Node | null)[] = [];
    if (view.status === GameStatus.WAITING) parts.push(this.waiting(view));
    parts.push(tableElement(view, {
      ownHand: view.viewerSeat,
      addable: legal && view.phase === Phase.PLAY ? legal.addToMelds : [],
      onMeld: (m) => this.stage(m.index),
      clock: this.clock(),
    }));
    if (view.viewerSeat !== undefined) parts.push(this.ownHand(view));
    parts.push(h("div", { class: `message${this.messageIsError ? " error" : ""}`, attrs: { "data-test": "message", role: "status" }, text: this.message }));
    if (view.result?.finished) parts.push(h("div", { class: "result", attrs: { "data-test": "result" }, text: resultWords(view.result) }), h("a", { class: "button", text: "Replay this game", attrs: { href: `#/replay/${this.gameId}`, "data-test": "replay-link" } }));
    if (view.lastDeal) parts.push(h("div", { attrs: { "data-test": "last-deal" } }, scoreTable(view.lastDeal, this.name)));
    replace(this.body, ...parts);
    // For tests and tools that follow the page: the seq shown, and whether the seat is to act.
    this.body.dataset.seq = String(view.seq);
    this.body.dataset.acting = String(!!legal);
  }

  private waiting(view: GameView): HTMLElement {
    const free = view.seats.filter((s) => !s.occupied);
    const creator = creatorToken(this.gameId);
    const link = `${location.origin}/#/game/${this.gameId}`;
    return h("div", { class: "waiting" },
      h("p", { text: `Waiting for ${free.length} more player${free.length === 1 ? "" : "s"}. Share this page: ` }, h("code", { text: link })),
      this.held ? null : h("div", { class: "join" }, ...free.map((s) => button(`Take seat ${s.seat + 1}`, () => void this.join(s.seat), { test: `join-${s.seat}` }))),
      creator ? button("Cancel the game", () => void this.cancel(creator), { class: "danger" }) : null);
  }

  private async join(seat: number): Promise<void> {
    const name = (localStorage.getItem("canasta.name") ?? "").trim() || "Player";
    try {
      const r = await api.joinGame({ gameId: this.gameId, seat, displayName: name });
      this.held = { seat: r.seat, token: r.token };
      holdSeat(this.gameId, this.held);
      location.reload();
    } catch (e) {
      this.show(errorText(e), true);
    }
  }

  private async cancel(token: string): Promise<void> {
    try {
      await api.cancelGame({ gameId: this.gameId }, as(token));
      await this.refresh();
    } catch (e) {
      this.show(errorText(e), true);
    }
  }

  /** The seat's own hand and its controls. */
  private ownHand(view: GameView): HTMLElement {
    const hand = this.myHand();
    const used = this.usedIndices();
    const legal = this.legal;
    const canPick = !!legal && view.phase === Phase.PLAY;
    const handEl = handElement(hand, "", canPick ? (i) => this.toggle(i) : undefined, this.selected, used);
    const ownMelds = view.sides.find((s) => view.viewerSeat !== undefined && s.seats.includes(view.viewerSeat))?.melds ?? [];
    const staged = this.staged.map((s, i) => h("div", { class: "staged", attrs: { "data-test": "staged" } },
      h("span", { text: s.meldIndex === undefined ? `New meld ${i + 1}: ` : `Add to ${stagedTarget(ownMelds.find((m) => m.index === s.meldIndex))}: ` }),
      h("span", { text: cardsName(s.cards.map((c) => hand[c])) })));
    return h("section", { class: "own" },
      h("h2", { text: `Your hand (${hand.length})` }),
      handEl,
      staged.length ? h("div", { class: "staging" }, ...staged) : null,
      h("div", { class: "controls", attrs: { "data-test": "controls" } }, ...this.controls(view, legal, hand)));
  }

  private toggle(i: number): void {
    if (this.selected.has(i)) this.selected.delete(i);
    else this.selected.add(i);
    this.render();
  }

  /** The selected cards become a new meld (no index) or an addition to meld `meldIndex`. */
  private stage(meldIndex?: number): void {
    if (!this.selected.size) {
      this.show("Select the cards first, then choose the meld.", true);
      return;
    }
    this.staged.push({ meldIndex, cards: [...this.selected].sort((a, b) => a - b) });
    this.selected.clear();
    this.message = "";
    this.render();
  }

  private stagedSpecs(hand: Card[]): MeldInit[] {
    return this.staged.map((s) => ({ meldIndex: s.meldIndex, cards: s.cards.map((i) => hand[i]) }));
  }

  private controls(view: GameView, legal: LegalChoices | undefined, hand: Card[]): HTMLElement[] {
    if (!legal) {
      if (view.status === GameStatus.PLAYING && view.toAct !== undefined) {
        return [h("span", { class: "hint", text: `${this.name(view.toAct)} is to act.` })];
      }
      return [];
    }
    const out: HTMLElement[] = [];
    const top = view.pile.length ? view.pile[view.pile.length - 1] : undefined;
    if (legal.canDraw) out.push(button("Draw from the stock", () => void this.submit({ kind: { case: "drawStock", value: {} } }), { test: "draw", class: "primary" }));
    for (const t of legal.pileTakes) {
      out.push(button(takeLabel(t, top), () => void this.take(t, hand, top), { test: "take" }));
    }
    if (legal.canDeclinePile) out.push(button("Decline the pile", () => void this.submit({ kind: { case: "declinePile", value: {} } }), { test: "decline" }));
    if (view.phase === Phase.PLAY) {
      const canMeld = legal.meldRanks.length > 0 || legal.sequenceSuits.length > 0 || legal.canMeldWilds || legal.addToMelds.length > 0;
      if (canMeld) {
        out.push(button("Make a meld of the selection", () => this.stage(), { test: "stage", disabled: !this.selected.size }));
        if (legal.addToMelds.length) out.push(h("span", { class: "hint", text: "or click one of your side's melds to add the selection to it" }));
        out.push(button(`Lay ${this.staged.length || ""} meld${this.staged.length === 1 ? "" : "s"}`.replace("  ", " "), () => void this.submit({ kind: { case: "meld", value: { melds: this.stagedSpecs(hand) } } }), { test: "lay", disabled: !this.staged.length, class: "primary" }));
      }
      if (this.staged.length || this.selected.size) out.push(button("Clear", () => { this.clearChoice(); this.message = ""; this.render(); }, { test: "clear" }));
      if (legal.canDiscard) {
        const one = this.selected.size === 1 ? hand[[...this.selected][0]] : undefined;
        out.push(button(one ? `Discard ${cardName(one)}` : "Discard (select one card)", () => one && void this.submit({ kind: { case: "discard", value: { card: one } } }), { test: "discard", disabled: !one || this.staged.length > 0 }));
      }
      if (legal.canGoOut) {
        const rest = [...this.selected];
        out.push(button("Go out", () => void this.submit({ kind: { case: "goOut", value: { melds: this.stagedSpecs(hand), discard: rest.length === 1 ? hand[rest[0]] : undefined } } }), { test: "go-out", title: "lay the staged melds and discard the selected card (if any)" }));
      }
      if (legal.canAskPartner) out.push(button("Ask partner: may I go out?", () => void this.submit({ kind: { case: "askPartner", value: {} } }), { test: "ask" }));
      if (legal.minimumRemaining > 0) out.push(h("span", { class: "hint", text: `Your side needs ${legal.minimumRemaining} more points in its first meld.` }));
    }
    if (legal.mustAnswer) {
      out.push(button("Yes, go out", () => void this.submit({ kind: { case: "answerPartner", value: { yes: true } } }), { test: "answer-yes" }));
      out.push(button("No", () => void this.submit({ kind: { case: "answerPartner", value: { yes: false } } }), { test: "answer-no" }));
    }
    return out;
  }

  /** Takes the pile as option `t`: with the selected cards, or with cards picked from the hand. */
  private async take(t: TakeOption, hand: Card[], top: Card | undefined): Promise<void> {
    let cards: Card[];
    if (this.selected.size) {
      cards = [...this.selected].map((i) => hand[i]);
    } else {
      const used = this.usedIndices();
      const free = hand.map((c, i) => ({ c, i })).filter(({ i }) => !used.has(i));
      const naturals = free.filter(({ c }) => top && c.rank === top.rank && !isWild(c)).slice(0, t.naturals);
      // The cheapest wilds: twos before jokers.
      const wilds = free.filter(({ c }) => isWild(c)).sort((a, b) => a.c.rank - b.c.rank).slice(0, t.wilds);
      if (naturals.length < t.naturals || wilds.length < t.wilds) {
        this.show("Select the cards that meld the pile's top card, then take it.", true);
        return;
      }
      cards = [...naturals, ...wilds].map(({ c }) => c);
    }
    const melds = t.withMelds ? this.stagedSpecs(hand) : [];
    await this.submit({ kind: { case: "takePile", value: { meldIndex: t.meldIndex, cards, melds } } });
  }

  private async submit(action: ActionInit): Promise<void> {
    if (this.busy || !this.held || !this.view) return;
    this.busy = true;
    try {
      await api.submitAction({ gameId: this.gameId, expectedSeq: this.view.seq, requestId: requestId(), action }, as(this.held.token));
      this.clearChoice();
      this.message = "";
      this.legal = undefined;
      this.render();
      await this.refresh();
    } catch (e) {
      this.show(errorText(e), true);
      if (e instanceof ConnectError && e.code === Code.Aborted) await this.refresh();
    } finally {
      this.busy = false;
    }
  }
}

function stagedTarget(m: TableMeld | undefined): string {
  return m ? `the meld of ${meldTitle(m)}` : "a meld";
}

function takeLabel(t: TakeOption, top: Card | undefined): string {
  const topName = top ? cardName(top) : "the top card";
  if (t.meldIndex !== undefined) return `Take the pile: ${topName} onto meld ${t.meldIndex + 1}`;
  const parts = [];
  if (t.naturals) parts.push(`${t.naturals} ${top && top.rank !== Rank.UNSPECIFIED ? rankWord(top.rank, t.naturals) : "naturals"}`);
  if (t.wilds) parts.push(`${t.wilds} wild${t.wilds === 1 ? "" : "s"}`);
  return `Take the pile: meld ${topName} with ${parts.join(" and ") || "your cards"}${t.withMelds ? " (and your new melds)" : ""}`;
}
