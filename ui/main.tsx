/// <reference lib="dom" />
/**
 * The dashboard's entry point and the one place models are wired together: the page's address picks the
 * run list or a run (`?run=<id>`), `?stage=1` turns on presentation mode, and the keyboard drives the player.
 *
 * @module
 */
import { render } from "preact";
import { RunList } from "./components/run_list.tsx";
import { fetchSummary } from "./lib/api.ts";
import { RunView } from "./components/run_view.tsx";
import { TreeView } from "./components/tree_view.tsx";
import { PlayerModel } from "./models/player_model.ts";
import { RunModel } from "./models/run_model.ts";
import { RunsModel } from "./models/runs_model.ts";
import { TreeModel } from "./models/tree_model.ts";
import { ViewModel } from "./models/view_model.ts";

const params = new URLSearchParams(location.search);
const stage = params.get("stage") === "1";
const id = params.get("run");
const root = document.getElementById("app")!;
// The page ships a "loading" line for the first paint; the app replaces it.
root.textContent = "";
document.body.classList.toggle("stage", stage);

if (id && params.get("view") === "tree") {
  const tree = new TreeModel(id);
  document.title = `${id} — Arrow tree`;
  render(<TreeView model={tree} id={id} />, root);
  void tree.load();
} else if (id) {
  // An old link (or a typed URL) to a tree run without view=tree: the graph view would wait forever.
  void fetchSummary(id).then((sum) => {
    if (sum.kind === "tree") location.replace(`/?run=${encodeURIComponent(id)}&view=tree`);
  }).catch(() => {});
  const run = new RunModel(id);
  const player = new PlayerModel(run);
  const view = new ViewModel(run, player);
  document.title = `${id} — Arrow`;
  document.addEventListener("keydown", (e) => {
    const t = e.target as HTMLElement | null;
    if (t && (t.tagName === "INPUT" || t.tagName === "SELECT" || t.tagName === "BUTTON")) return;
    if (e.key === " ") player.toggle();
    else if (e.key === "ArrowLeft") player.step(-1);
    else if (e.key === "ArrowRight") player.step(1);
    else if (e.key === "Escape") view.select(null);
    else return;
    e.preventDefault();
  });
  render(<RunView run={run} player={player} view={view} stage={stage} />, root);
  void run.load();
} else {
  render(<RunList runs={new RunsModel()} stage={stage} />, root);
}
