// A finished game replayed step by step from the server (GetReplayStep): every hand shown, each
// step's action and events in words, each deal's score report; next, previous, jump to a deal.

import type { GetReplayStepResponse } from "./gen/canasta/v1/service_pb.js";
import { api, errorText } from "./api.js";
import { button, h, replace } from "./dom.js";
import { namer, tableElement } from "./table.js";
import { eventWords, resultWords, scoreTable } from "./words.js";

/** Shows the replay of `gameId` from `step` in `root`. */
export function showReplay(root: HTMLElement, gameId: string, step: number, signal: AbortSignal): void {
  const body = h("div", { class: "replay-body" });
  const nav = h("div", { class: "replay-nav", attrs: { "data-test": "replay-nav" } });
  const events = h("ol", { class: "log", attrs: { "data-test": "log" } });
  const message = h("div", { class: "message error", attrs: { role: "status", "data-test": "message" } });
  replace(root,
    h("header", { class: "bar" }, h("h1", {}, h("a", { text: "Canasta", attrs: { href: "#/" } }), ` · replay of ${gameId}`), h("span", { class: "role", text: "Every hand shown" })),
    h("main", { class: "game" }, h("div", {}, nav, message, body), h("aside", { class: "side-panel" }, h("h2", { text: "This step" }), events)));
  let current: GetReplayStepResponse | undefined;
  const go = async (to: number) => {
    try {
      const r = await api.getReplayStep({ gameId, step: to }, { signal });
      current = r;
      history.replaceState(null, "", `#/replay/${gameId}/${r.step}`);
      message.textContent = "";
      render(r);
    } catch (e) {
      if (!signal.aborted) message.textContent = errorText(e);
    }
  };
  const render = (r: GetReplayStepResponse) => {
    const view = r.view;
    if (!view) return;
    const name = namer(view);
    const deal = r.dealSteps.filter((s) => s <= r.step).length;
    const dealSelect = h("select", { attrs: { "data-test": "deal", "aria-label": "jump to a deal" } });
    r.dealSteps.forEach((s, i) => dealSelect.append(h("option", { text: `Deal ${i + 1}`, attrs: { value: String(s) } })));
    dealSelect.value = String(r.dealSteps[Math.max(0, deal - 1)] ?? 0);
    dealSelect.addEventListener("change", () => void go(Number(dealSelect.value)));
    const slider = h("input", { attrs: { type: "range", min: "0", max: String(r.steps), value: String(r.step), "aria-label": "step" } });
    slider.addEventListener("change", () => void go(Number(slider.value)));
    replace(nav,
      button("« First", () => void go(0), { disabled: r.step === 0, title: "first step", test: "first" }),
      button("◀ Previous", () => void go(r.step - 1), { disabled: r.step === 0, test: "prev" }),
      h("span", { class: "step", attrs: { "data-test": "step" }, text: `Step ${r.step} of ${r.steps}` }),
      button("Next ▶", () => void go(r.step + 1), { disabled: r.step >= r.steps, test: "next" }),
      button("Last »", () => void go(r.steps), { disabled: r.step >= r.steps, title: "last step", test: "last" }),
      dealSelect, slider);
    const parts: (Node | null)[] = [tableElement(view)];
    if (r.step === r.steps && view.result?.finished) parts.push(h("div", { class: "result", attrs: { "data-test": "result" }, text: resultWords(view.result) }));
    if (view.lastDeal) parts.push(h("div", { attrs: { "data-test": "last-deal" } }, scoreTable(view.lastDeal, name)));
    replace(body, ...parts);
    const lines = r.events.map((e) => eventWords(e, name)).filter(Boolean);
    const who = r.action ? `${name(r.action.seat)} acts.` : "The first deal is dealt.";
    replace(events, h("li", { class: "muted", text: who }), ...lines.map((l) => h("li", { text: l })));
  };
  const keys = (e: KeyboardEvent) => {
    if (!current || (e.target instanceof HTMLElement && ["INPUT", "SELECT"].includes(e.target.tagName))) return;
    if (e.key === "ArrowRight" && current.step < current.steps) void go(current.step + 1);
    if (e.key === "ArrowLeft" && current.step > 0) void go(current.step - 1);
  };
  document.addEventListener("keydown", keys);
  signal.addEventListener("abort", () => document.removeEventListener("keydown", keys));
  void go(step);
}
