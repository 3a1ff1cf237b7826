/**
 * The dashboard shows a live graph run's LLM use as it grows (issue 24): the run page's header counts the
 * agents' calls, tokens and cost while the run is live, updated as ticks arrive over the live feed, and ends
 * on exactly what the run's usage files and report say. Driven end to end: `arrow run --live` against the
 * scripted OpenAI-compatible server (it reports a cost per call), `arrow serve`'s server, Debian Chromium.
 *
 * @module
 */
/// <reference lib="dom" />
import { equal, match, ok } from "node:assert/strict";
import puppeteer from "puppeteer-core";
import { listen } from "../src/server/listen.ts";
import { arrow, spawnArrow } from "./helpers/cli.ts";
import { BWRAP, CHROMIUM, needs, NO_CHROMIUM } from "./helpers/needs.ts";
import { type Script, startScriptedServer } from "./llm/scripted_server.ts";

const skip = needs("usage_browser_test", "the live LLM-use case", NO_CHROMIUM);
const PLAN = new URL("./fixtures/live/plan.yaml", import.meta.url).pathname;
const COST = 0.0125;

interface Shown {
  phase: string | null;
  calls: number;
  tokens: number;
  cost: string;
  text: string;
}

Deno.test({
  name: "a live graph run's LLM calls, tokens and cost show in the run page's header and grow as it runs",
  ignore: skip,
  async fn() {
    const script = JSON.parse(
      Deno.readTextFileSync(new URL("./fixtures/live/research.json", import.meta.url)),
    ) as Script;
    // Each answered call takes a while and reports a cost, so the page sees the figure grow.
    for (const r of script.rules) {
      if (r.reply !== undefined) Object.assign(r, { delay_ms: 500, usage: { ...r.usage, cost: COST } });
    }
    await using server = await startScriptedServer(script);
    const runsDir = Deno.makeTempDirSync({ prefix: "arrow-usage-browser-" });
    const served = listen({ runsDir, port: 0 });
    const profile = Deno.makeTempDirSync({ prefix: "arrow-usage-chromium-" });
    const child = spawnArrow(
      ["run", PLAN, "--live", "--tick-ms", "100", "--runs-dir", runsDir, ...(BWRAP ? [] : ["--unsandboxed"])],
      "null",
      { ARROW_LLM_BASE_URL: server.url, ARROW_LLM_API_KEY: "sk-test-usage", ARROW_LLM_MODEL: "scripted" },
    );
    const browser = await puppeteer.launch({
      executablePath: CHROMIUM!,
      headless: true,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", `--user-data-dir=${profile}`],
    });
    try {
      let id: string | undefined;
      for (let i = 0; i < 200 && !id; i++) {
        id = [...Deno.readDirSync(runsDir)].map((d) => d.name).find((n) => {
          try {
            return Deno.statSync(`${runsDir}/${n}/replay.jsonl`).size > 0;
          } catch {
            return false;
          }
        });
        if (!id) await new Promise((r) => setTimeout(r, 50));
      }
      ok(id, "the run started");
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(String(e)));
      // Every figure the header shows, with the page's phase at that moment.
      await page.exposeFunction("__shown", (s: Shown) => void seen.push(s));
      const seen: Shown[] = [];
      await page.evaluateOnNewDocument(() => {
        let last = "";
        new MutationObserver(() => {
          const el = document.querySelector<HTMLElement>(".llm-use");
          if (!el || el.textContent === last) return;
          last = el.textContent ?? "";
          (window as unknown as { __shown: (s: unknown) => void }).__shown({
            phase: document.querySelector("main")?.getAttribute("data-phase") ?? null,
            calls: Number(el.dataset.calls),
            tokens: Number(el.dataset.tokens),
            cost: el.dataset.cost ?? "",
            text: last,
          });
        }).observe(document, { childList: true, subtree: true, characterData: true });
      });
      await page.goto(`${served.url.replace(/\/?$/, "/")}?run=${encodeURIComponent(id!)}`);
      const status = await child.status;
      equal(status.code, 0, "arrow run --live finished");
      await page.waitForSelector('main[data-phase="finished"]', { timeout: 30_000 });

      // What the run's own records say: distinct calls per usage file, their tokens and cost.
      let calls = 0, cost = 0;
      for (const f of Deno.readDirSync(`${runsDir}/${id}/.arrow/usage`)) {
        const lines = Deno.readTextFileSync(`${runsDir}/${id}/.arrow/usage/${f.name}`).split("\n").filter(
          Boolean,
        )
          .map((l) => JSON.parse(l) as { call: string; cost?: number });
        const byCall = new Map(lines.map((l) => [l.call, l]));
        calls += byCall.size;
        cost += [...byCall.values()].reduce((n, l) => n + (l.cost ?? 0), 0);
      }
      ok(calls >= 3, `the agents made calls (${calls})`);
      await page.waitForFunction(
        (n: number) => Number(document.querySelector<HTMLElement>(".llm-use")?.dataset.calls) === n,
        { timeout: 10_000 },
        calls,
      );
      const report = await arrow(["report", id!, "--runs-dir", runsDir]);
      const total = report.stdout.match(/^\| \*\*total\*\* \| (\d+) \| (\d+) \| \$([\d.]+) \|$/m);
      ok(total, report.stdout);
      const last = seen.at(-1)!;
      equal(last.calls, Number(total![1]));
      equal(last.tokens, Number(total![2]));
      ok(Math.abs(Number(last.cost) - cost) < 1e-9, `${last.cost} vs ${cost}`);
      match(
        last.text,
        new RegExp(`^LLM ${calls} calls · [\\d,]+ tokens · \\$${total![3]!.replace(".", "\\.")}$`),
      );

      // Shown while the run was live, and updated as it went (not only at the end).
      const live = seen.filter((s) => s.phase === "live");
      ok(live.length >= 1, `a figure shown while live: ${JSON.stringify(seen)}`);
      ok(live[0]!.tokens < last.tokens, `it grew: ${JSON.stringify(seen.map((s) => [s.phase, s.tokens]))}`);
      equal(errors.length, 0, errors.join("\n"));
    } finally {
      try {
        child.kill("SIGTERM");
      } catch {
        // already ended
      }
      await child.status;
      await browser.close();
      await served.close();
      Deno.removeSync(profile, { recursive: true });
      Deno.removeSync(runsDir, { recursive: true });
    }
  },
});
