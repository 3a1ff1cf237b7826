/**
 * The tree view in a real browser (Debian Chromium through puppeteer-core): a finished tree run — nodes
 * coloured by status, the admitted path drawn bold, a node's hypothesis and insight on click (LLM text that
 * tries to be HTML stays text), the gain chart, replay — and a live one growing over server-sent events.
 * The runs are written by the tree's own black box from fabricated executor observations (no children).
 *
 * @module
 */
/// <reference lib="dom" />
import { equal, ok } from "node:assert/strict";
import { CHROMIUM, needs, NO_CHROMIUM } from "./helpers/needs.ts";
import puppeteer, { type Page } from "puppeteer-core";
import { listen } from "../src/server/listen.ts";
import { TreeBlackBox } from "../src/tree/blackbox.ts";
import { step } from "../src/tree/step.ts";
import type { TreeEvent, TreeState } from "../src/tree/types.ts";
import { TREE_STATUS_LOOK } from "../ui/models/tree_model.ts";
import { fakeStart, folds, hyp, ok as honest } from "./tree_fake.ts";

const XSS = '<img src=x onerror="window.__xss=1">';
const skip = needs("tree_browser_test", "the tree browser cases", NO_CHROMIUM);

const evil = { ...hyp("xss"), text: `Add a feature ${XSS}`, source: "llm" as const };
const EVENTS: TreeEvent[] = [
  { e: "executed", results: [honest("n0", folds(0.8))] },
  { e: "gated", node: "n0", score: 0.8, problem: null, escapes: [] },
  { e: "proposed", parent: "n0", hypotheses: [evil, hyp("b", "log")], problems: [], tokens: 0 },
  {
    e: "executed",
    results: [honest("n1", folds(0.8, 0.02)), {
      ...honest("n2", folds(0.8)),
      exit: 3,
      claim: null,
      lesson: "Cannot run the feature transform's fit: <b>boom</b>",
    }],
  },
  { e: "gated", node: "n1", score: 0.83, problem: null, escapes: [] },
  {
    e: "proposed",
    parent: "n1",
    hypotheses: [hyp("c", "binning"), hyp("d", "product")],
    problems: [],
    tokens: 0,
  },
  { e: "executed", results: [honest("n3", folds(0.8, -0.03)), honest("n4", folds(0.8, 0.021))] },
];

/** Writes a tree run the way `arrow tree` does, event by event; returns a function appending the rest. */
function writeRun(runsDir: string, id: string, upTo: number) {
  const runDir = `${runsDir}/${id}`;
  Deno.mkdirSync(runDir, { recursive: true });
  Deno.writeTextFileSync(`${runDir}/run.json`, JSON.stringify({ run_id: id, mode: "tree" }));
  const box = new TreeBlackBox(runDir);
  let s: TreeState = fakeStart({ cycles: 2 });
  box.append({ e: "init", state: s }, s, []);
  let next = 0;
  const more = (n: number) => {
    for (const ev of EVENTS.slice(next, next + n)) {
      const out = step(s, ev);
      s = out.state;
      box.append(ev, s, out.incidents);
    }
    next += n;
    return s;
  };
  more(upTo);
  return more;
}

/** Appends one call to the run's LLM ideator log, as the ideator does. */
function llmCall(runDir: string, tokens: number, cost: number | null) {
  Deno.mkdirSync(`${runDir}/logs`, { recursive: true });
  const line = JSON.stringify({ tokens, ...(cost === null ? {} : { cost }), model: "scripted" });
  Deno.writeTextFileSync(`${runDir}/logs/llm.jsonl`, line + "\n", { append: true });
}

async function withPage(fn: (page: Page) => Promise<void>): Promise<void> {
  const profile = Deno.makeTempDirSync({ prefix: "arrow-tree-chromium-" });
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM!,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      `--user-data-dir=${profile}`,
    ],
  });
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 1300, height: 1000 });
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await fn(page);
    equal(errors.length, 0, errors.join("\n"));
  } finally {
    await browser.close();
    Deno.removeSync(profile, { recursive: true });
  }
}

const rgb = (hex: string) => `rgb(${[1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(", ")})`;

Deno.test({
  name: "tree view: status colours, the admitted path, a node's text on click (never HTML), chart and replay",
  ignore: skip,
  async fn() {
    const runsDir = Deno.makeTempDirSync({ prefix: "arrow-tree-browser-" });
    const served = listen({ runsDir, port: 0 });
    try {
      const id = "20260101-000000-tree-done";
      const more = writeRun(runsDir, id, EVENTS.length);
      const s = more(0);
      // The LLM ideator's log: two calls, their tokens and the cost the API reported.
      llmCall(`${runsDir}/${id}`, 120, 0.01);
      llmCall(`${runsDir}/${id}`, 180, 0.015);
      await withPage(async (page) => {
        await page.goto(`${served.url}?run=${id}&view=tree`);
        await page.waitForSelector('g.tnode[data-node="n4"]');
        await page.waitForSelector('.llm-use[data-calls="2"][data-tokens="300"]');
        equal(await page.$eval(".llm-use", (el) => el.textContent), "LLM 2 calls · 300 tokens · $0.0250");
        equal(await page.$$eval("g.tnode", (els) => els.length), s.order.length);
        for (const id of s.order) {
          const fill = await page.$eval(
            `g.tnode[data-node="${id}"] circle`,
            (el) => getComputedStyle(el).fill,
          );
          equal(fill, rgb(TREE_STATUS_LOOK[s.nodes[id]!.status].fill), id);
        }
        const admitted = await page.$$eval(
          'g.tnode[data-admitted="true"]',
          (els) => els.map((e) => e.getAttribute("data-node")),
        );
        equal(admitted.sort().join(), "n0,n1");
        equal(await page.$$eval("line.tedge.admitted", (els) => els.length), 1);

        await page.click('g.tnode[data-node="n1"]');
        await page.waitForSelector('.tree-details[data-node="n1"]');
        equal(await page.$eval(".tree-details .hyp-text", (el) => el.textContent), `Add a feature ${XSS}`);
        equal(await page.$$eval(".tree-details img", (els) => els.length), 0);
        ok((await page.$eval(".tree-details .insight-text", (el) => el.textContent))?.includes("helped"));
        await page.click('g.tnode[data-node="n2"]');
        ok((await page.$eval(".tree-details .lesson-text", (el) => el.textContent))?.includes("<b>boom</b>"));
        equal(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss), undefined);

        const dev = await page.$eval('polyline[data-series="dev"]', (el) => el.getAttribute("points"));
        equal(dev?.split(" ").length, 3, "one point per cycle, the baseline's included");

        await page.click('button[data-act="start"]');
        await page.waitForSelector('main[data-at="0"]');
        equal(await page.$$eval("g.tnode", (els) => els.length), 1);
        await page.click('button[data-act="step"]');
        await page.waitForSelector('main[data-at="1"]');
        await page.click('button[data-act="end"]');
        await page.waitForSelector(`main[data-at="${EVENTS.length}"]`);
        equal(await page.$$eval("g.tnode", (els) => els.length), s.order.length);
      });
    } finally {
      await served.close();
      Deno.removeSync(runsDir, { recursive: true });
    }
  },
});

Deno.test({
  name: "tree view follows a live run over server-sent events: new nodes appear as steps are written",
  ignore: skip,
  async fn() {
    const runsDir = Deno.makeTempDirSync({ prefix: "arrow-tree-browser-" });
    const served = listen({ runsDir, port: 0 });
    try {
      const id = "20260101-000000-tree-live";
      const more = writeRun(runsDir, id, 2);
      await withPage(async (page) => {
        await page.goto(`${served.url}?run=${id}&view=tree`);
        await page.waitForSelector('main[data-phase="live"] g.tnode[data-node="n0"][data-status="admitted"]');
        equal(await page.$$eval(".llm-use", (els) => els.length), 0, "no LLM call yet, nothing shown");
        // An ideation: its call is logged, then its proposals are written; the header follows.
        llmCall(`${runsDir}/${id}`, 250, null);
        more(2);
        await page.waitForSelector('g.tnode[data-node="n1"][data-status="evaluated"]', { timeout: 15_000 });
        await page.waitForSelector('.llm-use[data-calls="1"][data-tokens="250"]', { timeout: 15_000 });
        equal(await page.$eval(".llm-use", (el) => el.textContent), "LLM 1 call · 250 tokens");
        more(EVENTS.length);
        await page.waitForSelector('g.tnode[data-node="n4"]', { timeout: 15_000 });
      });
    } finally {
      await served.close();
      Deno.removeSync(runsDir, { recursive: true });
    }
  },
});
