/**
 * Dates in a newcomer's CSV: a column of day-first dates (`25/12/2021`) is read as text levels, which no
 * encoding turns into a weekday or a season. The data describes it as dates (dev rows only), the library
 * offers the date family on it, its module reads the file's field order from training rows and gives
 * year, month, day, weekday and day number in place of the text, nothing on the path acts on the text after
 * it, and a tree run climbs with it end to end — to `tree predict` on new dates.
 *
 * @module
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { crossValidate, type FeatureTransform, mulberry32 } from "../src/tabular/mod.ts";
import { loadData } from "../src/tree/data.ts";
import { libraryIdeas } from "../src/tree/ideate/library.ts";
import { toolkitSpecifier } from "../src/tree/run.ts";
import { initialState } from "../src/tree/grow.ts";
import type { TreeState } from "../src/tree/types.ts";
import { fakeConfig } from "./tree_fake.ts";
import { arrow } from "./helpers/cli.ts";

const DAY = 86_400_000;

/** Sales that follow the weekday (+8 at weekends), the season (+4 in June–August) and the store (+2 for A). */
function sales(n: number, seed: number): string {
  const rnd = mulberry32(seed);
  const lines = ["when,store,temp,sales"];
  for (let i = 0; i < n; i++) {
    const d = new Date(Date.UTC(2019, 0, 1) + Math.floor(rnd() * 1000) * DAY);
    const weekend = d.getUTCDay() === 0 || d.getUTCDay() === 6;
    const summer = [5, 6, 7].includes(d.getUTCMonth());
    const store = rnd() < 0.5 ? "A" : "B";
    const y = 20 + (weekend ? 8 : 0) + (summer ? 4 : 0) + (store === "A" ? 2 : 0) + (rnd() - 0.5) * 3;
    const dd = String(d.getUTCDate()).padStart(2, "0"), mm = String(d.getUTCMonth() + 1).padStart(2, "0");
    lines.push(`${dd}/${mm}/${d.getUTCFullYear()},${store},${(rnd() * 30).toFixed(1)},${y.toFixed(2)}`);
  }
  return lines.join("\n") + "\n";
}

Deno.test("a column of dates is described as dates, offered the date family, and its module reads the calendar", async () => {
  const tmp = Deno.makeTempDirSync({ prefix: "arrow-tree-dates-" });
  try {
    Deno.writeTextFileSync(`${tmp}/sales.csv`, sales(600, 11));
    const data = loadData(`${tmp}/sales.csv`, "sales", { seed: 2 });
    const when = data.info.columns.find((c) => c.name === "when")!;
    equal(when.date, true);
    equal(when.nameLike, false);
    equal(data.info.columns.find((c) => c.name === "store")!.date, undefined);
    const s: TreeState = initialState(
      fakeConfig({ toolkit: toolkitSpecifier(tmp), metric: "r2", direction: "maximize" }),
      data.info,
      "tree:sales",
    );
    const space = libraryIdeas(s, "n0", 1000, 1);
    const dates = space.filter((h) => h.family === "date_parts");
    deepEqual(dates.map((h) => h.columns), [["when"]], "offered on the dates, and only there");

    // The module: day-first learnt from the training rows, the calendar in place of the text.
    const dir = `${tmp}/nodes/n1/steps`;
    Deno.mkdirSync(dir, { recursive: true });
    Deno.writeTextFileSync(`${dir}/001_dates.ts`, dates[0]!.step!.source);
    const mod = (await import(`file://${dir}/001_dates.ts`)).default as FeatureTransform<unknown>;
    const fitted = mod.fit([{ when: "25/12/2021" }, { when: "01/02/2020" }]);
    deepEqual(fitted, { dmy: true, time: false });
    deepEqual(mod.transform(fitted, [{ when: "01/02/2020", store: "A" }, { when: "soon", store: "B" }]), [
      {
        store: "A",
        "when~year": 2020,
        "when~month": 2,
        "when~day": 1,
        "when~weekday": 6,
        "when~days": 18293,
      },
      {
        store: "B",
        "when~year": null,
        "when~month": null,
        "when~day": null,
        "when~weekday": null,
        "when~days": null,
      },
    ]);
    // Times of day: the hour is added once the training rows hold one.
    const timed = mod.fit([{ when: "2021-03-14 09:30" }, { when: "2021-03-15" }]);
    deepEqual(timed, { dmy: false, time: true });
    const t = mod.transform(timed, [{ when: "2021-03-15T18:45:00Z" }])[0] as Record<string, unknown>;
    deepEqual([t["when~weekday"], t["when~hour"]], [1, 18.75]);
    const spec = { target: data.task.target, model: { stages: 60 } };
    const raw = crossValidate(data.table, data.task.splits, spec, "r2").mean;
    const read = crossValidate(data.table, data.task.splits, { ...spec, transform: mod }, "r2").mean;
    ok(raw < 0.3 && read > 0.8, `the calendar is what the model needed: R² ${raw} → ${read}`);

    // Once a node on the path has read the dates, nothing below it acts on the text that is gone.
    const n0 = s.nodes.n0!;
    s.nodes.n1 = {
      ...structuredClone(n0),
      id: "n1",
      parent: "n0",
      depth: 1,
      hypothesis: dates[0]!,
      children: [],
    };
    n0.children = ["n1"];
    s.order = [...s.order, "n1"];
    const child = "n1";
    const below = libraryIdeas(s, child, 1000, 1);
    ok(below.length > 0);
    deepEqual(below.filter((x) => x.columns.includes("when")), []);
  } finally {
    Deno.removeSync(tmp, { recursive: true });
  }
});

Deno.test("arrow tree climbs on a CSV of dates with the date family, and tree predict reads new dates", async () => {
  const tmp = Deno.makeTempDirSync({ prefix: "arrow-tree-dates-" });
  try {
    Deno.writeTextFileSync(`${tmp}/sales.csv`, sales(700, 5));
    const r = await arrow([
      "tree",
      "--data",
      `${tmp}/sales.csv`,
      "--target",
      "sales",
      "--cycles",
      "2",
      "--runs-dir",
      `${tmp}/runs`,
      "--json",
    ]);
    equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    const state = JSON.parse(Deno.readTextFileSync(`${out.run_dir}/state.json`));
    type Node = { hypothesis: { family: string } | null; dev: { mean: number } | null };
    const nodes = Object.values(state.nodes as Record<string, Node>);
    const datesNode = nodes.find((n) => n.hypothesis?.family === "date_parts");
    ok(datesNode, "the date family was tried");
    const start = state.nodes.n0.dev.mean as number;
    ok(datesNode.dev!.mean > start + 0.5, `dev R² ${start} → ${datesNode.dev!.mean}`);
    ok(state.final.start < 0.3 && state.final.best > 0.8, JSON.stringify(state.final));

    // 2021-12-25 is a Saturday in winter at store A (20 + 8 + 2); 2022-07-01 a summer Friday at B (20 + 4).
    Deno.writeTextFileSync(`${tmp}/new.csv`, "when,store,temp\n25/12/2021,A,3.5\n01/07/2022,B,25\n");
    const p = await arrow(["tree", "predict", out.run_dir, `${tmp}/new.csv`]);
    equal(p.code, 0, p.stderr);
    const pred = p.stdout.trim().split("\n").slice(1).map((l) => Number(l.split(",")[1]));
    ok(Math.abs(pred[0]! - 30) < 2.5 && Math.abs(pred[1]! - 24) < 2.5, `predictions ${pred}`);
  } finally {
    Deno.removeSync(tmp, { recursive: true });
  }
});
