/**
 * The dashboard in a real browser (Debian Chromium through puppeteer-core): a live run followed as it goes,
 * a finished run in the replay player, and agent text that tries to be HTML. It also measures first paint,
 * bundle size and how long an incident takes from the engine to the page. Screenshots go to tests/output/.
 *
 * @module
 */
/// <reference lib="dom" />
import { equal, ok } from "node:assert/strict";
import { gzipSync } from "node:zlib";
import { CHROMIUM, needs, NO_CHROMIUM } from "./helpers/needs.ts";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { resolveBuiltin } from "../src/cli/catalog.ts";
import { startLive } from "../src/cli/live.ts";
import { prepare } from "../src/engine/prepare.ts";
import { startRun } from "../src/engine/run.ts";
import { canonical, canonicalPretty } from "../src/model/json.ts";
import type { ReplayLine } from "../src/model/events.ts";
import { fold } from "../src/model/reduce.ts";
import { ASSETS } from "../src/server/assets.gen.ts";
import { listen } from "../src/server/listen.ts";
import { STATUS_LOOK } from "../ui/lib/palette.ts";

const OUT = new URL("./output/", import.meta.url).pathname;
const SANITIZE = { sanitizeOps: true, sanitizeResources: true } as const;
const XSS = "<img src=x onerror=alert(1)>";

const skip = needs("browser_test", "the browser cases", NO_CHROMIUM);

const tmp = Deno.makeTempDirSync({ prefix: "arrow-browser-test-" });
globalThis.addEventListener("unload", () => Deno.removeSync(tmp, { recursive: true }));
Deno.mkdirSync(OUT, { recursive: true });

const now = () => performance.timeOrigin + performance.now();

async function withPage<T>(fn: (page: Page, browser: Browser) => Promise<T>): Promise<T> {
  const profile = Deno.makeTempDirSync({ dir: tmp, prefix: "chromium-" });
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
    await page.setViewport({ width: 1400, height: 1000 });
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
    // Stamps the moment each incident type first shows up in the DOM, on the page's own clock.
    await page.evaluateOnNewDocument(() => {
      const seen: Record<string, number> = {};
      (window as unknown as { __seen: Record<string, number> }).__seen = seen;
      const w = window as unknown as { __graph?: number };
      new MutationObserver(() => {
        if (w.__graph === undefined && document.querySelector("svg.graph g.node")) {
          w.__graph = performance.now();
        }
        for (const el of document.querySelectorAll<HTMLElement>("li[data-incident-type]")) {
          const t = el.dataset.incidentType!;
          seen[t] ??= performance.timeOrigin + performance.now();
        }
      }).observe(document, { childList: true, subtree: true });
    });
    const out = await fn(page, browser);
    equal(errors.length, 0, `the page logged errors: ${errors.join("\n")}`);
    return out;
  } finally {
    await browser.close();
  }
}

const seenAt = (page: Page, type: string) =>
  page.evaluate((t) => (window as unknown as { __seen: Record<string, number> }).__seen[t] ?? null, type);

const shot = async (page: Page, name: string) => {
  await page.screenshot({ path: `${OUT}${name}.png`, fullPage: true });
  console.log(`  screenshot: tests/output/${name}.png`);
};

const status = (page: Page, id: string) =>
  page.$eval(`g.node[data-node="${id}"]`, (el) => el.getAttribute("data-status")).catch(() => null);

async function runMock(runsDir: string, name: string): Promise<string> {
  const id = `20260101-000000-${name}-browser`;
  const res = resolveBuiltin(name);
  Deno.mkdirSync(`${runsDir}/${id}`, { recursive: true });
  await startRun(prepare(res.plan, res.faults, name, "mock"), {
    runDir: `${runsDir}/${id}`,
    tickMs: 0,
    maxTicks: 5000,
  });
  return id;
}

Deno.test({
  name: "live run --serve: SCOPE_VIOLATION streams into the page and N4 turns blocked",
  ignore: skip,
  ...SANITIZE,
  async fn() {
    const runsDir = `${tmp}/live`;
    const id = "20260101-000000-trap_scope-live";
    const runDir = `${runsDir}/${id}`;
    Deno.mkdirSync(runDir, { recursive: true });
    // What `arrow run` leaves before the first tick: the run directory, its metadata and its lock.
    Deno.mkdirSync(`${runDir}/.arrow`, { recursive: true });
    Deno.writeTextFileSync(`${runDir}/run.json`, JSON.stringify({ run_id: id, scenario: "trap_scope" }));
    Deno.writeTextFileSync(`${runDir}/.arrow/lock`, JSON.stringify({ pid: Deno.pid, start: null }));
    const live = await startLive({ runsDir, runDir, port: 0, host: undefined, quiet: true });
    try {
      await withPage(async (page) => {
        // The page is open and following before the engine starts, so every tick reaches it live.
        await page.goto(live.url);
        await page.waitForSelector('main[data-phase="live"][data-connected="true"] .graph-empty');
        const res = resolveBuiltin("trap_scope");
        let emitted = 0;
        const run = startRun(prepare(res.plan, res.faults, "trap_scope", "mock"), {
          runDir,
          tickMs: 100,
          maxTicks: 5000,
          onTick: (s, events) => {
            live.onTick(s, events);
            if (events.some((e) => e.e === "incident" && e.incident.type === "SCOPE_VIOLATION")) {
              emitted = now();
            }
          },
        });
        await page.waitForSelector('li[data-incident-type="SCOPE_VIOLATION"]', { timeout: 20_000 });
        await page.waitForFunction(() =>
          document.querySelector('g.node[data-node="N4"]')?.getAttribute("data-status") === "blocked"
        );
        const fill = await page.$eval('g.node[data-node="N4"] .shape', (el) => getComputedStyle(el).fill);
        const want = STATUS_LOOK.blocked.fill;
        const rgb = `rgb(${[1, 3, 5].map((i) => parseInt(want.slice(i, i + 2), 16)).join(", ")})`;
        equal(fill, rgb);
        const latency = (await seenAt(page, "SCOPE_VIOLATION"))! - emitted;
        console.log(`  incident → DOM latency (onTick, in-process feed): ${latency.toFixed(1)} ms`);
        // Pushed, not polled: the figure (goal 100 ms) is printed above; the bound only tells a live push from
        // a page that waits for a reload, so a loaded machine does not fail it.
        ok(latency >= 0 && latency < 2000, `latency ${latency.toFixed(1)} ms within 2 s`);
        const final = await run;
        equal(final.verdict, "RESULT WITHHELD");
        await page.waitForFunction(() =>
          document.querySelector(".verdict")?.textContent === "RESULT WITHHELD"
        );
        await shot(page, "live_trap_scope");
      });
    } finally {
      await live.close();
    }
  },
});

Deno.test({
  name: "replay player: steps back and forth, freezes on PLATEAU_TRIP, N7 appears in place",
  ignore: skip,
  ...SANITIZE,
  async fn() {
    const runsDir = `${tmp}/replay`;
    const id = await runMock(runsDir, "plateau");
    const served = listen({ runsDir, port: 0 });
    try {
      await withPage(async (page) => {
        // A cold load (fresh browser, nothing cached), then a warm one.
        for (const load of ["cold", "warm"]) {
          await page.goto(`${served.url}?run=${id}`);
          await page.waitForSelector('g.node[data-node="N7"]');
          const t = await page.evaluate(() => ({
            fcp: performance.getEntriesByType("paint").find((e) => e.name === "first-contentful-paint")
              ?.startTime,
            graph: (window as unknown as { __graph?: number }).__graph,
          }));
          console.log(
            `  ${load} load on localhost: first contentful paint ${t.fcp?.toFixed(0)} ms, ` +
              `graph drawn at ${t.graph?.toFixed(0)} ms after navigation start`,
          );
        }
        const js = Object.entries(ASSETS).find(([p]) => p.endsWith(".js"))![1].body;
        const raw = new TextEncoder().encode(js);
        console.log(`  JS bundle: ${raw.length} B raw, ${gzipSync(raw, { level: 9 }).length} B gzip`);
        const placed = await page.$eval('g.node[data-node="N7"]', (el) => el.getAttribute("transform"));

        const tickIs = (t: number) =>
          page.waitForFunction(
            (t) => document.querySelector(".player")?.getAttribute("data-tick") === String(t),
            {},
            t,
          );
        await page.click('[data-act="start"]');
        await tickIs(0);
        equal(await status(page, "N7"), null, "N7 does not exist at tick 0");
        for (let i = 0; i < 3; i++) await page.click('[data-act="step"]');
        await tickIs(3);
        await page.click('[data-act="back"]');
        await tickIs(2);
        equal(await status(page, "N0"), "verified");

        await page.select(".speed select", "16");
        await page.click('[data-act="play"]');
        await page.waitForFunction(() => {
          const p = document.querySelector(".player");
          return p?.getAttribute("data-frozen") === "PLATEAU_TRIP" &&
            p.getAttribute("data-playing") === "false";
        });
        await tickIs(18);
        equal(await status(page, "N4"), "plateaued");
        equal(await status(page, "N7"), "pending");
        equal(await page.$eval('g.node[data-node="N7"]', (el) => el.getAttribute("transform")), placed);
        await shot(page, "replay_plateau_frozen");

        await page.click('[data-act="back"]');
        await tickIs(17);
        equal(await status(page, "N7"), null, "N7 is gone again before graph surgery");
        await page.click('[data-act="step"]');
        await tickIs(18);
        await page.click('[data-act="play"]');
        await page.waitForFunction(() =>
          document.querySelector(".verdict")?.textContent === "NEGATIVE RESULT"
        );
        await tickIs(26);
        equal(await status(page, "N7"), "verified");

        await page.goto(`${served.url}?run=${id}&stage=1`);
        await page.waitForSelector(".run-page.stage .narration + header");
        await shot(page, "replay_plateau_stage");
      });
    } finally {
      await served.close();
    }
  },
});

Deno.test({
  name: "agent text that looks like HTML is shown literally and runs nothing",
  ignore: skip,
  ...SANITIZE,
  async fn() {
    const runsDir = `${tmp}/xss`;
    const from = await runMock(runsDir, "trap_scope");
    const lines = Deno.readTextFileSync(`${runsDir}/${from}/replay.jsonl`).trim().split("\n")
      .map((l) => JSON.parse(l) as ReplayLine);
    const id = "20260101-000000-xss-live";
    const dir = `${runsDir}/${id}`;
    Deno.mkdirSync(`${dir}/.arrow`, { recursive: true });
    // A run still going: the black box up to tick 8, its lock held by this process.
    const before = lines.filter((l) => l.tick <= 8);
    Deno.writeTextFileSync(`${dir}/replay.jsonl`, before.map((l) => canonical(l) + "\n").join(""));
    Deno.writeTextFileSync(`${dir}/state.json`, canonicalPretty(fold(before)));
    Deno.writeTextFileSync(`${dir}/.arrow/lock`, JSON.stringify({ pid: Deno.pid, start: null }));
    const served = listen({ runsDir, port: 0 });
    try {
      await withPage(async (page) => {
        let dialogs = 0;
        page.on("dialog", (d) => {
          dialogs++;
          void d.dismiss();
        });
        await page.goto(`${served.url}?run=${id}`);
        await page.waitForSelector('g.node[data-node="N4"][data-status="running"]');
        const evil: ReplayLine = {
          tick: 9,
          events: [{
            e: "incident",
            incident: {
              tick: 9,
              type: "SCOPE_VIOLATION",
              node: "N4",
              ladder: "blame_routing",
              evidence: {
                writer: "N4",
                scope: "nodes/N4",
                paths: [`nodes/N3/${XSS}`],
                unattributed: `${XSS}<script>window.__xss=1</script>`,
                attempts: [],
                blocked: [],
              },
              laps: 0,
              tokens: 0,
            },
          }, { e: "status", node: "N4", from: "running", to: "blocked" }],
        };
        const appended = now();
        Deno.writeTextFileSync(`${dir}/replay.jsonl`, canonical(evil) + "\n", { append: true });
        await page.waitForSelector('li[data-incident-type="SCOPE_VIOLATION"]');
        const latency = (await seenAt(page, "SCOPE_VIOLATION"))! - appended;
        console.log(
          `  incident → DOM latency (appended by another process, file watcher): ${latency.toFixed(1)} ms`,
        );
        ok(latency < 2000, `latency ${latency.toFixed(1)} ms within 2 s (goal 100 ms, printed above)`);

        await page.click('li[data-incident-type="SCOPE_VIOLATION"] button');
        await page.waitForSelector(".drawer");
        const texts = await page.evaluate(() => ({
          incident: document.querySelector("li[data-incident-type]")!.textContent!,
          drawer: document.querySelector(".drawer")!.textContent!,
          narration: document.querySelector(".narration")!.textContent!,
          report: document.querySelector(".report")!.textContent!,
          imgs: document.querySelectorAll("img").length,
          scripts: [...document.querySelectorAll("script")].filter((s) => !s.src).length,
          xss: (window as unknown as { __xss?: number }).__xss ?? null,
        }));
        for (const part of ["incident", "drawer", "report"] as const) {
          ok(texts[part].includes(XSS), `${part} shows the markup literally`);
        }
        ok(texts.drawer.includes("<script>window.__xss=1</script>"));
        ok(texts.narration.includes(XSS) || texts.incident.includes(XSS));
        deepEqualCounts(texts, dialogs);
        await shot(page, "xss_literal");
      });
    } finally {
      await served.close();
    }
  },
});

function deepEqualCounts(t: { imgs: number; scripts: number; xss: number | null }, dialogs: number) {
  equal(t.imgs, 0, "no <img> element was created");
  equal(t.scripts, 0, "no inline <script> element was created");
  equal(t.xss, null, "no script ran");
  equal(dialogs, 0, "no alert() ran");
}
