/**
 * The run list in a real browser, over runs the CLI made (`arrow tree` and `arrow run`): each row shows the
 * run's kind, metric and score, and its link opens a tree run in the tree view and a graph run in the graph
 * view (a tree run opened as a graph waited forever for ticks it never writes).
 *
 * @module
 */
/// <reference lib="dom" />
import { equal, match, ok } from "node:assert/strict";
import puppeteer from "puppeteer-core";
import { listen } from "../src/server/listen.ts";
import { arrow } from "./helpers/cli.ts";
import { CHROMIUM, needs, NO_CHROMIUM } from "./helpers/needs.ts";

const skip = needs("run_list_browser_test", "the run list cases", NO_CHROMIUM);
const SMALL = new URL("./fixtures/tree/small.csv", import.meta.url).pathname;

Deno.test({
  name:
    "run list: kind, metric and score per run; a tree run opens the tree view, a graph run the graph view",
  ignore: skip,
  async fn() {
    const runsDir = Deno.makeTempDirSync({ prefix: "arrow-run-list-" });
    const tree = await arrow([
      "tree",
      "--data",
      SMALL,
      "--target",
      "label",
      "--cycles",
      "1",
      "--executors",
      "1",
      "--runs-dir",
      runsDir,
      "--json",
    ]);
    equal(tree.code, 0, tree.stderr);
    const treeOut = JSON.parse(tree.stdout);
    const graph = await arrow(["run", "--scenario", "green", "--runs-dir", runsDir, "--json"]);
    equal(graph.code, 0, graph.stderr);
    const treeId = treeOut.run_dir.split("/").pop() as string;
    const graphId = [...Deno.readDirSync(runsDir)].map((d) => d.name).find((n) => n !== treeId)!;
    const served = listen({ runsDir, port: 0 });
    const profile = Deno.makeTempDirSync({ prefix: "arrow-run-list-chromium-" });
    const browser = await puppeteer.launch({
      executablePath: CHROMIUM!,
      headless: true,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", `--user-data-dir=${profile}`],
    });
    try {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(String(e)));
      await page.goto(served.url);
      await page.waitForSelector(`tr[data-run="${treeId}"]`);
      const row = (id: string) =>
        page.$eval(`tr[data-run="${id}"]`, (tr) => ({
          kind: tr.querySelector(".kind")?.textContent,
          metric: tr.querySelector(".metric")?.textContent,
          score: tr.querySelector(".score")?.textContent,
          href: tr.querySelector("a")?.getAttribute("href"),
        }));
      const t = await row(treeId);
      equal(t.kind, "tree");
      equal(t.metric, "accuracy");
      equal(t.score, `${treeOut.best.test.toFixed(4)} (final test)`);
      const g = await row(graphId);
      equal(g.kind, "graph");
      equal(g.metric, "dev_r2");
      match(g.score ?? "", /^0\.\d{4} \(method\)$/);

      await page.click(`tr[data-run="${treeId}"] a`);
      await page.waitForSelector("main.tree-page g.tnode");
      ok(page.url().includes("view=tree"), page.url());
      equal(await page.$$eval("g.tnode", (els) => els.length), treeOut.node_count);

      await page.goto(served.url);
      await page.waitForSelector(`tr[data-run="${graphId}"] a`);
      await page.click(`tr[data-run="${graphId}"] a`);
      await page.waitForSelector('section[aria-label="Task graph"]');
      equal(
        await page.$$eval("main.tree-page", (els) => els.length),
        0,
        "a graph run is not drawn as a tree",
      );
      equal(errors.length, 0, errors.join("\n"));
    } finally {
      await browser.close();
      await served.close();
      Deno.removeSync(profile, { recursive: true });
      Deno.removeSync(runsDir, { recursive: true });
    }
  },
});
