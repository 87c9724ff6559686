// The page in a real browser: Debian's Chromium (no browser is downloaded) driven by
// playwright-core. tests/tests/web_page.rs runs it against a server on 127.0.0.1:0 with a JSON
// of its settings as its one argument: { url, seed, screenshots, chromium }.
//
// It opens the lobby, creates a game (a seed, a target of 1 point so that the match ends with
// its first deal, and 600 s a move, whose clock it reads) with the server's own bots in the
// three other seats, plays the person's seat by clicking (draw or take the pile, meld, discard) to the end of the deal and
// sees its score, reloads mid-game and goes on, follows the game in a second page as a
// spectator (which must never show a hand), then replays the finished game to its end. Every
// step's screenshot goes to `screenshots`. Any console error fails it. It prints a JSON report.

import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";

const settings = JSON.parse(process.argv[2]);
const report = { tookPile: 0, melds: 0, draws: 0, discards: 0, turns: 0, reloads: 0, dealScores: 0, spectatorChecks: 0, replaySteps: 0 };
const errors = [];
mkdirSync(settings.screenshots, { recursive: true });
let shot = 0;
const screenshot = async (page, name, fullPage = true) => {
  shot += 1;
  await page.screenshot({ path: join(settings.screenshots, `${String(shot).padStart(2, "0")}-${name}.png`), fullPage });
};
const fail = (why) => {
  throw new Error(why);
};

const profile = mkdtempSync(join(tmpdir(), "canasta-chromium-"));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: settings.chromium,
  headless: true,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  viewport: { width: 1280, height: 900 },
});
const watchErrors = (page, who) => {
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(`${who}: console: ${m.text()}`);
  });
  page.on("pageerror", (e) => errors.push(`${who}: ${e.message}`));
};

try {
  const page = context.pages()[0] ?? (await context.newPage());
  watchErrors(page, "player");
  page.setDefaultTimeout(30_000);

  // The lobby, and a new game.
  await page.goto(settings.url);
  await page.waitForSelector("[data-test=list-waiting]");
  await page.waitForSelector("[data-test=options] input[name='opt:target_score']", { state: "attached" });
  await screenshot(page, "lobby");
  await page.click("[data-test=rule-options] summary");
  await page.fill("input[name='opt:target_score']", "1");
  await page.fill("input[name=seed]", String(settings.seed));
  await page.fill("input[name=name]", "Alice");
  // A time control whose budget no move here comes near: the clock shows while the seat acts.
  await page.fill("input[name=budget]", "600");
  await page.selectOption("select[name=seat]", "0");
  // The server's own bots in the three other seats: the game starts when Alice has joined.
  await page.selectOption("select[name='bot:0']", "");
  for (const seat of [1, 2, 3]) await page.selectOption(`select[name='bot:${seat}']`, "greedy");
  await screenshot(page, "create");
  await page.click("[data-test=create]");
  await page.waitForURL(/#\/game\//);
  const gameId = decodeURIComponent(new URL(page.url()).hash.split("/")[2]);
  await page.waitForSelector("[data-test=role]:has-text('You play seat 1')");
  await page.locator(".seat-head", { hasText: "(greedy)" }).nth(2).waitFor();
  const botSeats = await page.locator(".seat-head", { hasText: "the server's bot" }).count();
  if (botSeats !== 3) fail(`${botSeats} seats show the server's bots, not 3`);

  // A spectator in a second page (its own tab: it holds no seat).
  const spectator = await context.newPage();
  watchErrors(spectator, "spectator");
  await spectator.goto(`${settings.url}#/game/${gameId}/watch`);
  await spectator.waitForSelector("[data-test=role]:has-text('spectator')");
  const checkSpectator = async () => {
    const faceUp = await spectator.locator(".seat .hand .card:not(.back)").count();
    const own = await spectator.locator(".own").count();
    if (faceUp || own) fail(`the spectator's page shows a hand (${faceUp} cards face up, ${own} own hands)`);
    report.spectatorChecks += 1;
  };

  const body = page.locator(".game-body");
  const seq = async () => Number(await body.getAttribute("data-seq"));
  // Clicks and waits for the game to move on, or for a refusal's message; returns whether it moved.
  const act = async (locator) => {
    const before = await seq();
    await page.locator("[data-test=message]").evaluate((el) => { el.textContent = ""; });
    await locator.click();
    const moved = await page.waitForFunction((s) => {
      const b = document.querySelector(".game-body");
      const m = document.querySelector("[data-test=message]");
      if (m && m.classList.contains("error") && m.textContent) return "refused";
      return b && Number(b.dataset.seq) > s ? "moved" : false;
    }, before).then((h) => h.jsonValue());
    return moved === "moved";
  };
  const handCards = async () => page.locator(".own [data-test=hand] .card:not(.used)").evaluateAll((els) => els.map((e) => ({ index: Number(e.dataset.index), rank: Number(e.dataset.rank) })));
  const select = async (indices) => {
    for (const i of indices) await page.click(`.own [data-test=hand] .card[data-index='${i}']`);
  };
  const natural = (r) => r >= 4 && r <= 14;

  // The person's turns, to the end of the match.
  let turn = 0;
  for (;;) {
    await page.waitForSelector(".game-body[data-acting=true], [data-test=result]", { timeout: 60_000 });
    if (await page.locator("[data-test=result]").count()) break;
    turn += 1;
    if (turn > 200) fail("the match did not end within 200 of the person's turns");
    if (turn === 1) {
      const clock = await page.locator("[data-test=clock]").textContent();
      if (!/^\d+:\d\d left to act$/.test(clock ?? "")) fail(`the time left is shown as ${clock}`);
      report.clock = clock;
    }
    report.turns = turn;
    if (turn === 3 && report.reloads === 0) {
      // A reload mid-game: the tab keeps its seat and resumes.
      await page.reload();
      report.reloads += 1;
      await page.waitForSelector("[data-test=role]:has-text('You play seat 1')");
      await page.waitForSelector(".game-body[data-acting=true], [data-test=result]");
      await screenshot(page, "after-reload");
      continue;
    }
    if (await page.locator("[data-test=answer-yes]").count()) {
      await act(page.locator("[data-test=answer-yes]"));
      continue;
    }
    // Draw: the pile if it may be taken, else the stock.
    let drew = false;
    const takes = page.locator("[data-test=take]");
    if (await takes.count()) {
      if (await act(takes.first())) {
        report.tookPile += 1;
        drew = true;
        await screenshot(page, `took-pile-${report.tookPile}`);
      } else {
        await page.click("[data-test=clear]").catch(() => {});
      }
    }
    if (!drew && (await page.locator("[data-test=draw]").count())) {
      if (!(await act(page.locator("[data-test=draw]")))) fail(`drawing was refused: ${await page.locator("[data-test=message]").textContent()}`);
      report.draws += 1;
    }
    await page.waitForSelector(".game-body[data-acting=true], [data-test=result]");
    if (await page.locator("[data-test=result]").count()) break;
    if (!(await page.locator("[data-test=discard]").count())) continue;
    // Meld every rank held three times or more; add to the side's melds what fits.
    const hand = await handCards();
    const byRank = new Map();
    for (const c of hand) if (natural(c.rank)) byRank.set(c.rank, [...(byRank.get(c.rank) ?? []), c.index]);
    const addable = await page.locator(".meld.addable").evaluateAll((els) => els.map((e) => ({ index: Number(e.dataset.index), rank: Number(e.dataset.rank) })));
    let staged = 0;
    for (const m of addable) {
      const cards = byRank.get(m.rank);
      if (!cards) continue;
      await select(cards);
      await page.click(`.meld.addable[data-index='${m.index}']`);
      byRank.delete(m.rank);
      staged += 1;
    }
    for (const [, cards] of byRank) {
      if (cards.length < 3 || !(await page.locator("[data-test=stage]").count())) continue;
      await select(cards);
      await page.click("[data-test=stage]");
      staged += 1;
    }
    if (staged) {
      if (await act(page.locator("[data-test=lay]"))) {
        report.melds += 1;
        if (report.melds === 1) await screenshot(page, "melded");
      } else {
        await page.click("[data-test=clear]");
      }
      await page.waitForSelector(".game-body[data-acting=true], [data-test=result]");
      if (await page.locator("[data-test=result]").count()) break;
    }
    // Discard the loneliest natural (or any card if none).
    const rest = await handCards();
    if (!rest.length) continue;
    const counts = new Map();
    for (const c of rest) counts.set(c.rank, (counts.get(c.rank) ?? 0) + 1);
    const order = [...rest].sort((a, b) => (natural(b.rank) - natural(a.rank)) || (counts.get(a.rank) - counts.get(b.rank)) || (a.rank - b.rank));
    let discarded = false;
    for (const c of order) {
      await select([c.index]);
      if (await act(page.locator("[data-test=discard]"))) {
        discarded = true;
        break;
      }
      await page.click("[data-test=clear]").catch(() => {});
    }
    if (!discarded) fail(`no discard was accepted: ${await page.locator("[data-test=message]").textContent()}`);
    report.discards += 1;
    if (turn === 2) await screenshot(page, "table");
    await checkSpectator();
    if (turn === 2) await screenshot(spectator, "spectator");
  }

  // The deal's score and the match's end.
  await page.waitForSelector("[data-test=last-deal] .score-report");
  report.dealScores = await page.locator("[data-test=last-deal] .score-report").count();
  await screenshot(page, "deal-score");
  await spectator.waitForSelector("[data-test=result]");
  await checkSpectator();
  await screenshot(spectator, "spectator-end");

  // The replay, from the finished game's page: step by step, then by deal, to its end.
  await page.click("[data-test=replay-link]");
  await page.waitForSelector("[data-test=step]:has-text('Step 0 of')");
  const shown = await page.locator(".seat .hand .card:not(.back)").count();
  const seats = await page.locator(".seat").count();
  if (seats !== 4 || shown < 4 * 11) fail(`the replay's first step shows ${shown} cards of ${seats} hands: every hand must show`);
  await screenshot(page, "replay-start");
  for (let i = 1; i <= 3; i++) {
    await page.click("[data-test=next]");
    await page.waitForSelector(`[data-test=step]:has-text('Step ${i} of')`);
  }
  await page.click("[data-test=prev]");
  await page.waitForSelector("[data-test=step]:has-text('Step 2 of')");
  await screenshot(page, "replay-step");
  await page.click("[data-test=last]");
  await page.waitForSelector("[data-test=result]");
  const stepText = await page.locator("[data-test=step]").textContent();
  const [, at, of] = /Step (\d+) of (\d+)/.exec(stepText) ?? [];
  if (!at || at !== of) fail(`the replay's last step says ${stepText}`);
  report.replaySteps = Number(of);
  await page.waitForSelector("[data-test=last-deal] .score-report");
  await screenshot(page, "replay-end");

  // A phone-sized screen: the same page, laid out in one column.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.click("[data-test=first]");
  await page.waitForSelector("[data-test=step]:has-text('Step 0 of')");
  await screenshot(page, "phone-replay");
  await page.goto(`${settings.url}#/`);
  await page.waitForSelector("[data-test=list-finished] [data-test=replay]");
  await screenshot(page, "phone-lobby");
  await page.setViewportSize({ width: 1280, height: 900 });
  await spectator.close();
  if (errors.length) fail(`console errors:\n${errors.join("\n")}`);
  console.log(JSON.stringify({ ok: true, gameId, ...report }));
} catch (e) {
  console.log(JSON.stringify({ ok: false, error: String(e?.stack ?? e), errors, ...report }));
  process.exitCode = 1;
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}
