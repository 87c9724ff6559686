// The lobby: the games waiting, playing and finished, and the form that creates one.

import { GameStatus, Preset, TimeoutPolicy, type GameSummary } from "./gen/canasta/v1/game_pb.js";
import { api, errorText, holdCreator, holdSeat } from "./api.js";
import { button, h, replace } from "./dom.js";

const PRESETS: [Preset, string][] = [
  [Preset.OFFICIAL, "Official (classic) Canasta"],
  [Preset.WIENER, "Wiener Canasta"],
  [Preset.SAMBA, "Samba"],
  [Preset.SWISS, "Swiss Canasta"],
];

/** Who may play a seat: a player, or one of the server's built-in bots. */
const BOTS: [string, string][] = [
  ["", "a player"],
  ["greedy", "bot: greedy"],
  ["safe", "bot: safe"],
  ["random", "bot: random"],
  ["search:50ms", "bot: search (50 ms a move)"],
];

const STATUS_SECTIONS: [GameStatus, string][] = [
  [GameStatus.WAITING, "Waiting for players"],
  [GameStatus.PLAYING, "Playing"],
  [GameStatus.FINISHED, "Finished"],
];

/** Shows the lobby in `root`, refreshing its lists every few seconds until `signal` aborts. */
export function showLobby(root: HTMLElement, signal: AbortSignal): void {
  const lists = h("div", { class: "lists" });
  const message = h("div", { class: "message", attrs: { role: "status", "data-test": "message" } });
  replace(root,
    h("header", { class: "bar" }, h("h1", { text: "Canasta" }), h("span", { class: "role", text: "Lobby" })),
    h("main", { class: "lobby" }, createForm(message), h("div", {}, message, lists)));
  const load = async () => {
    try {
      const sections = await Promise.all(STATUS_SECTIONS.map(async ([status, title]) => {
        const r = await api.listGames({ status, pageSize: 25 }, { signal });
        return gameList(status, title, r.games);
      }));
      replace(lists, ...sections);
    } catch (e) {
      if (!signal.aborted) message.textContent = errorText(e);
    }
  };
  void load();
  const timer = setInterval(() => void load(), 4000);
  signal.addEventListener("abort", () => clearInterval(timer));
}

function presetName(p: number): string {
  return PRESETS.find(([x]) => x === p)?.[1] ?? "Canasta";
}

function gameList(status: GameStatus, title: string, games: GameSummary[]): HTMLElement {
  const rows = games.map((g) => {
    const seats = g.seats.map((s) => s.bot ? `${s.displayName || s.bot} (bot)` : s.occupied ? (s.displayName || `seat ${s.seat + 1}`) : "free").join(", ");
    const actions: HTMLElement[] = [];
    if (status === GameStatus.FINISHED) {
      actions.push(h("a", { class: "button", text: "Replay", attrs: { href: `#/replay/${g.gameId}`, "data-test": "replay" } }));
    } else {
      actions.push(h("a", { class: "button", text: status === GameStatus.WAITING ? "Open" : "Watch", attrs: { href: `#/game/${g.gameId}`, "data-test": "open" } }));
    }
    const totals = g.result?.totals.length ? ` · ${g.result.totals.join(" : ")}` : "";
    return h("li", { class: "game-row", attrs: { "data-game": g.gameId } },
      h("div", {}, h("strong", { text: `${presetName(g.rules?.preset ?? 0)}, ${g.rules?.playerCount ?? "?"} players` }), h("span", { class: "muted", text: ` · ${g.gameId}` })),
      h("div", { class: "muted", text: `${seats}${totals}` }),
      h("div", { class: "row-actions" }, ...actions));
  });
  return h("section", { class: "game-list", attrs: { "data-test": `list-${GameStatus[status].toLowerCase()}` } },
    h("h2", { text: `${title} (${games.length})` }),
    rows.length ? h("ul", {}, ...rows) : h("p", { class: "muted", text: "none" }));
}

function field(label: string, input: HTMLElement, hint = ""): HTMLElement {
  return h("label", { class: "field" }, h("span", { text: label }), input, hint ? h("small", { text: hint }) : null);
}

function select(name: string, options: [string, string][]): HTMLSelectElement {
  const s = h("select", { attrs: { name } });
  for (const [value, label] of options) s.append(h("option", { text: label, attrs: { value } }));
  return s;
}

function createForm(message: HTMLElement): HTMLElement {
  const preset = select("preset", PRESETS.map(([p, l]) => [String(p), l]));
  const players = select("players", [["4", "4 (two sides of two)"], ["2", "2"], ["3", "3"], ["6", "6 (two sides of three)"]]);
  const options = h("div", { class: "options", attrs: { "data-test": "options" } });
  const seed = h("input", { attrs: { name: "seed", inputmode: "numeric", placeholder: "random" } });
  const budget = h("input", { attrs: { name: "budget", inputmode: "decimal", placeholder: "none", value: "" } });
  const policy = select("policy", [[String(TimeoutPolicy.FALLBACK_MOVE), "a safe move is played"], [String(TimeoutPolicy.FORFEIT), "the side forfeits"]]);
  const name = h("input", { attrs: { name: "name", maxlength: "32", value: localStorage.getItem("canasta.name") ?? "" , placeholder: "Player" } });
  const seat = select("seat", []);
  const seatPlayers = h("div", { class: "seat-players", attrs: { "data-test": "seat-players" } });
  const fillSeats = () => {
    const n = Number(players.value);
    replace(seat, h("option", { text: "none: only watch", attrs: { value: "" } }),
      ...Array.from({ length: n }, (_, i) => h("option", { text: `seat ${i + 1}`, attrs: { value: String(i) } })));
    seat.value = "0";
    replace(seatPlayers, ...Array.from({ length: n }, (_, i) => {
      const who = select(`bot:${i}`, BOTS);
      // By default the server's bots play every seat but yours.
      who.value = i === 0 ? "" : "greedy";
      return field(`Seat ${i + 1}`, who);
    }));
  };
  const describe = async () => {
    try {
      const r = await api.describeRules({ rules: { preset: Number(preset.value), playerCount: Number(players.value) } });
      replace(options, ...r.options.map((o) => field(o.name, h("input", { attrs: { name: `opt:${o.name}`, value: o.value, "data-default": o.value } }), o.description)));
      message.textContent = "";
    } catch (e) {
      replace(options, h("p", { class: "error", text: errorText(e) }));
    }
  };
  preset.addEventListener("change", () => void describe());
  players.addEventListener("change", () => { fillSeats(); void describe(); });
  fillSeats();
  void describe();
  const create = async () => {
    const opts: Record<string, string> = {};
    for (const input of options.querySelectorAll<HTMLInputElement>("input")) {
      if (input.value !== input.dataset.default) opts[input.name.slice(4)] = input.value.trim();
    }
    const seedText = seed.value.trim();
    const budgetText = budget.value.trim();
    if (seedText && !/^\d+$/.test(seedText)) {
      message.textContent = "The seed is a whole number (or leave it empty for a random deal).";
      return;
    }
    const seconds = budgetText ? Number(budgetText) : 0;
    if (!Number.isFinite(seconds) || seconds < 0) {
      message.textContent = "The time per move is a number of seconds (or leave it empty for none).";
      return;
    }
    const bots = [...seatPlayers.querySelectorAll<HTMLSelectElement>("select")]
      .map((s, i) => ({ seat: i, bot: s.value }))
      .filter((b) => b.bot !== "");
    if (seat.value !== "" && bots.some((b) => b.seat === Number(seat.value))) {
      message.textContent = `Seat ${Number(seat.value) + 1} is given to a bot: take another seat, or give it to a player.`;
      return;
    }
    localStorage.setItem("canasta.name", name.value.trim());
    try {
      const r = await api.createGame({
        rules: { preset: Number(preset.value), playerCount: Number(players.value), options: opts },
        seed: seedText ? BigInt(seedText) : undefined,
        timeControl: seconds > 0 ? { moveBudgetMs: BigInt(Math.round(seconds * 1000)), policy: Number(policy.value) } : undefined,
        bots,
      });
      const gameId = r.game?.gameId ?? "";
      holdCreator(gameId, r.creatorToken);
      if (seat.value !== "") {
        const j = await api.joinGame({ gameId, seat: Number(seat.value), displayName: name.value.trim() || "Player" });
        holdSeat(gameId, { seat: j.seat, token: j.token });
      }
      location.hash = `#/game/${gameId}`;
    } catch (e) {
      message.textContent = errorText(e);
    }
  };
  return h("section", { class: "create" },
    h("h2", { text: "New game" }),
    field("Rules", preset),
    field("Players", players),
    h("details", { class: "rule-options", attrs: { "data-test": "rule-options" } }, h("summary", { text: "Rule options (the preset's by default)" }), options),
    field("Seed", seed, "the same seed deals the same cards"),
    field("Time per move (seconds)", budget, "empty: no clock"),
    field("When time runs out", policy),
    h("fieldset", { class: "seats-form" }, h("legend", { text: "Who plays each seat" }), seatPlayers,
      h("small", { class: "muted", text: "The server's own bots play the seats given to them; the others wait for players." })),
    field("Your name", name),
    field("Your seat", seat),
    button("Create the game", () => void create(), { class: "primary", test: "create" }));
}
