// The page's entry: a router on the URL's fragment.
//   #/                   the lobby
//   #/game/ID            a game: played for the seat this tab joined, else watched
//   #/game/ID/watch      a game, watched as a spectator
//   #/replay/ID[/STEP]   a finished game's replay

import { showGame } from "./live.js";
import { showLobby } from "./lobby.js";
import { showReplay } from "./replay.js";

const root = document.getElementById("app") as HTMLElement;
let current: AbortController | undefined;

function route(): void {
  current?.abort();
  current = new AbortController();
  const parts = location.hash.replace(/^#\/?/, "").split("/").map(decodeURIComponent);
  const [page, id, extra] = parts;
  window.scrollTo(0, 0);
  if (page === "game" && id) {
    document.title = `Canasta · ${id}`;
    showGame(root, id, extra === "watch", current.signal);
  } else if (page === "replay" && id) {
    document.title = `Canasta · replay ${id}`;
    const step = Number(extra ?? 0);
    showReplay(root, id, Number.isInteger(step) && step >= 0 ? step : 0, current.signal);
  } else {
    document.title = "Canasta";
    showLobby(root, current.signal);
  }
}

window.addEventListener("hashchange", route);
route();
