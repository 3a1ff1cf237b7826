/**
 * The sweep chart in a real browser (Debian Chromium through puppeteer-core): the golden sweep run rendered by
 * `SweepChart` from a harness page — one figure for the sweep, every configuration in the legend, the cuts
 * counted, a drawn canvas. A screenshot goes to tests/output/sweep_chart.png.
 *
 * @module
 */
/// <reference lib="dom" />
import { equal, ok } from "node:assert/strict";
import { CHROMIUM, needs, NO_CHROMIUM } from "./helpers/needs.ts";
import puppeteer from "puppeteer-core";
import { ROOT } from "./helpers/cli.ts";

const missing = needs("sweep_chart_browser_test", "the sweep chart browser case", NO_CHROMIUM);

const HARNESS = `
import { render } from "preact";
import { signal } from "@preact/signals";
import { fold } from "${ROOT}src/model/reduce.ts";
import { metricsOf } from "${ROOT}src/server/metrics.ts";
import { SweepChart } from "${ROOT}ui/components/sweep_chart.tsx";

const text = (id) => JSON.parse(document.getElementById(id).textContent);
const lines = text("replay").split("\\n").filter(Boolean).map((l) => JSON.parse(l));
const state = fold(lines);
const incidents = text("incidents").split("\\n").filter(Boolean).map((l) => JSON.parse(l));
const view = {
  state: signal(state),
  metrics: signal(metricsOf(state, lines)),
  incidents: signal(incidents.map((incident) => ({ incident }))),
};
render(<SweepChart view={view} />, document.getElementById("app"));
`;

async function bundle(dir: string): Promise<string> {
  Deno.writeTextFileSync(`${dir}/harness.tsx`, HARNESS);
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["bundle", "--platform=browser", "--config", `${ROOT}deno.json`, `${dir}/harness.tsx`],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout);
}

Deno.test({
  name: "SweepChart draws every configuration of the golden sweep on one chart, with its cuts",
  ignore: missing,
  sanitizeOps: true,
  sanitizeResources: true,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "arrow-sweep-chart-" });
    const browser = await puppeteer.launch({
      executablePath: CHROMIUM!,
      headless: true,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        `--user-data-dir=${dir}/profile`,
      ],
    });
    try {
      const js = await bundle(dir);
      const json = (s: string) => JSON.stringify(s).replaceAll("<", "\\u003c");
      const golden = `${ROOT}tests/golden/sweep`;
      const css = Deno.readTextFileSync(`${ROOT}node_modules/uplot/dist/uPlot.min.css`);
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(String(e)));
      page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
      await page.setViewport({ width: 900, height: 420 });
      await page.setContent(
        `<!doctype html><style>${css}</style><div id="app" style="width:860px"></div>` +
          `<script type="application/json" id="replay">${
            json(Deno.readTextFileSync(`${golden}/replay.jsonl`))
          }</script>` +
          `<script type="application/json" id="incidents">${
            json(Deno.readTextFileSync(`${golden}/incidents.jsonl`))
          }</script>` +
          `<script type="module">${js.replaceAll("</script", "<\\/script")}</script>`,
      );
      await page.waitForSelector("figure.sweep-chart canvas", { timeout: 10_000 }).catch((e) => {
        throw new Error(`${e.message}; page errors: ${errors.join("; ")}`);
      });
      const facts = await page.evaluate(() => {
        const fig = document.querySelector("figure.sweep-chart")!;
        return {
          sweep: fig.getAttribute("data-sweep"),
          points: Number(fig.getAttribute("data-points")),
          cuts: Number(fig.getAttribute("data-cuts")),
          caption: fig.querySelector("figcaption")!.textContent ?? "",
          legend: [...fig.querySelectorAll(".u-legend .u-series th")].map((e) => e.textContent ?? ""),
          canvas: fig.querySelectorAll("canvas").length,
        };
      });
      const incidents = Deno.readTextFileSync(`${golden}/incidents.jsonl`).split("\n").filter(Boolean);
      equal(facts.sweep, "N4");
      ok(facts.points > 0);
      equal(facts.cuts, incidents.length);
      ok(facts.caption.includes("9 configurations") && facts.caption.includes("rungs 6, 18"), facts.caption);
      for (let k = 1; k <= 9; k++) {
        ok(facts.legend.some((l) => l.includes(`N4_c0${k}`)), `legend has N4_c0${k}`);
      }
      ok(facts.legend.some((l) => l.includes("baseline")));
      equal(facts.canvas, 1);
      Deno.mkdirSync(`${ROOT}tests/output`, { recursive: true });
      await page.screenshot({ path: `${ROOT}tests/output/sweep_chart.png` });
    } finally {
      await browser.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
