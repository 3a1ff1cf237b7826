/**
 * A newcomer's own CSV through both modes (issues 22 and 24): one reader, so `arrow run --data` and `arrow
 * tree --data` take the same files; `--delimiter` (and a hint without it); a BOM stripped and said; yes/no
 * labels kept in the notes, the report and the predictions; an all-empty column dropped and said; the
 * report's row count after dropped rows; and `--resume` on a finished tree run saying there is nothing to do.
 *
 * @module
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { arrow, pool } from "./helpers/cli.ts";

const tmp = (prefix: string) => Deno.makeTempDirSync({ prefix });

/** 200 rows of `age<d>income<d>city<d>notes<d>bought`: notes always empty, every 10th target missing. */
function shop(d: string): string {
  const lines = [["age", "income", "city", "notes", "bought"].join(d)];
  for (let i = 0; i < 200; i++) {
    const income = (i * 37) % 190 + 10;
    const bought = i % 10 === 3 ? "" : (income > 90) !== (i % 7 === 0) ? "yes" : "no";
    lines.push([18 + (i * 13) % 60, income, ["Oslo", "Bergen", "Tromsø"][i % 3], "", bought].join(d));
  }
  return "\uFEFF" + lines.join("\n") + "\n";
}

Deno.test("a ;-separated file with a BOM, yes/no labels, missing targets and an empty column: said, kept, dropped, counted", async () => {
  const dir = tmp("arrow-newcomer-data-");
  const runsDir = `${dir}/runs`;
  try {
    const file = `${dir}/shop.csv`;
    Deno.writeTextFileSync(file, shop(";"));
    const base = ["tree", "--data", file, "--target", "bought", "--runs-dir", runsDir];

    // Without --delimiter: one column, and the hint names the flag that reads it.
    const hinted = await arrow(base);
    equal(hinted.code, 1, hinted.stderr);
    match(
      hinted.stderr,
      /shop\.csv:1: read as one column "age;income;city;notes;bought": it looks separated by ';'/,
    );
    match(hinted.stderr, /read it with --delimiter ';'/);
    const bad = await arrow([...base, "--delimiter", "x"]);
    equal(bad.code, 1);
    match(bad.stderr, /--delimiter must be one of , ; \\t \|/);

    const r = await arrow([...base, "--delimiter", ";", "--cycles", "1", "--executors", "1"]);
    equal(r.code, 0, r.stderr);
    match(
      r.stderr,
      /^note: .*shop\.csv starts with a UTF-8 byte-order mark \(BOM\): stripped before reading$/m,
    );
    match(r.stderr, /^note: columns read as separated by ';'$/m);
    match(r.stderr, /^note: 20 of 200 rows have no "bought" value and are dropped; 180 rows are used$/m);
    match(r.stderr, /^note: target "bought" is yes\/no: its classes keep the file's labels "no" and "yes"/m);
    match(r.stderr, /^note: column "notes" is empty on every row: dropped/m);
    match(r.stdout, /^ {2}column notes left out: empty on every row/m);
    ok(!/\b(true|false)\b/.test(r.stderr), r.stderr);
    const runDir = r.stdout.match(/→ (\S+)/)![1]!;

    const state = JSON.parse(Deno.readTextFileSync(`${runDir}/state.json`));
    deepEqual(state.dataset.classes, ["no", "yes"]);
    equal(
      state.dataset.columns.some((c: { name: string }) => c.name === "notes"),
      false,
      "notes is no feature",
    );
    const report = await arrow(["report", "latest", "--runs-dir", runsDir]);
    equal(report.code, 0, report.stderr);
    match(report.stdout, /^Data: .*shop\.csv — 180 of 200 rows used, 20 dropped: missing target \(/m);
    match(report.stdout, /target bought \(binary\)/);
    match(report.stdout, /Column notes was left out: empty on every row/);
    match(report.stdout, /^- .*byte-order mark \(BOM\): stripped/m);
    equal(JSON.parse(Deno.readTextFileSync(`${runDir}/model/model.json`)).classes.join(), "no,yes");

    // Predictions in the user's words, read with the run's delimiter; the empty column is not echoed.
    Deno.writeTextFileSync(`${dir}/new.csv`, "age;income;city\n30;150;Oslo\n50;20;Bergen\n");
    const p = await arrow(["tree", "predict", "latest", `${dir}/new.csv`, "--runs-dir", runsDir]);
    equal(p.code, 0, p.stderr);
    match(p.stderr, /columns read as separated by ";", as the run's CSV was/);
    const [head, ...rows] = p.stdout.trim().split("\n");
    equal(head, "row,prediction,p_no,p_yes");
    for (const row of rows) match(row, /^\d,(yes|no),[\d.e-]+,[\d.e-]+$/);

    // --resume on the finished run: nothing to resume, said plainly, nothing changed.
    const before = Deno.readTextFileSync(`${runDir}/state.json`);
    const again = await arrow(["tree", "--resume", runDir]);
    equal(again.code, 0, again.stderr);
    match(
      again.stdout,
      /already finished at step \d+ with (RESEARCH ANSWERED|NEGATIVE RESULT); nothing to resume\./,
    );
    equal(Deno.readTextFileSync(`${runDir}/state.json`), before);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

/** A numeric file with what spreadsheets export: a BOM, CRLF, a quoted header cell with a comma, a blank line. */
function numeric(d: string): string {
  const rows = Array.from({ length: 60 }, (_, i) => {
    const a = ((i * 17) % 23) / 4, b = ((i * 5) % 11) - 5;
    return [a, b, (1.5 * a - 0.7 * b + ((i * 3) % 7) / 10).toFixed(3)].join(d);
  });
  rows.splice(30, 0, "");
  return "\uFEFF" + [["a", '"b, in cm"', "y"].join(d), ...rows].join("\r\n") + "\r\n";
}

Deno.test("arrow run --data and arrow tree --data take the same files: the workers read them as the check did", async () => {
  const dir = tmp("arrow-newcomer-same-");
  try {
    const files = [["comma.csv", ","], ["semi.csv", ";"], ["tab.tsv", "\t"]] as const;
    for (const [name, d] of files) Deno.writeTextFileSync(`${dir}/${name}`, numeric(d));
    const runs = await pool([...files], 2, async ([name, d]) => {
      const flag = d === "," ? [] : ["--delimiter", d === "\t" ? "\\t" : d];
      const data = [
        "--data",
        `${dir}/${name}`,
        "--target",
        "y",
        ...flag,
        "--runs-dir",
        `${dir}/runs-${name}`,
      ];
      return [
        await arrow(["run", ...data, "--json"]),
        await arrow(["tree", ...data, "--cycles", "1", "--executors", "1", "--json"]),
      ];
    });
    runs.forEach(([run, tree], i) => {
      const name = files[i]![0];
      equal(run!.code, 0, `${name}: ${run!.stderr}`);
      equal(tree!.code, 0, `${name}: ${tree!.stderr}`);
      const out = JSON.parse(run!.stdout);
      ok(["RESEARCH ANSWERED", "NEGATIVE RESULT"].includes(out.verdict), `${name}: ${out.verdict}`);
      const m = JSON.parse(Deno.readTextFileSync(`${out.run_dir}/nodes/N1/results.json`));
      equal(m.rows, 60, `${name}: the data node read every row, past the blank line`);
      const t = JSON.parse(tree!.stdout);
      const s = JSON.parse(Deno.readTextFileSync(`${t.run_dir}/state.json`));
      equal(s.dataset.rows, 60, name);
      deepEqual(s.dataset.columns.map((c: { name: string }) => c.name).sort(), ["a", "b, in cm", "y"]);
    });
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("a yes/no target learns exactly what the same target written 0/1 does (only the labels differ)", async () => {
  const dir = tmp("arrow-newcomer-labels-");
  try {
    const small = Deno.readTextFileSync(new URL("./fixtures/tree/small.csv", import.meta.url));
    const coded = small.replace(/,(yes|no)$/gm, (_m, w: string) => (w === "yes" ? ",1" : ",0"));
    Deno.writeTextFileSync(`${dir}/coded.csv`, coded);
    const args = ["--target", "label", "--cycles", "2", "--executors", "2", "--seed", "4", "--json"];
    const [words, codes] = await pool(
      [
        new URL("./fixtures/tree/small.csv", import.meta.url).pathname,
        `${dir}/coded.csv`,
      ],
      2,
      (f) => arrow(["tree", "--data", f, ...args, "--runs-dir", `${dir}/runs-${f.length}`]),
    );
    for (const r of [words!, codes!]) equal(r.code, 0, r.stderr);
    const nodes = (r: { stdout: string }) =>
      JSON.parse(r.stdout).nodes.map((n: { hypothesis: string | null; dev: number | null; status: string }) =>
        `${n.hypothesis} ${n.dev} ${n.status}`
      );
    deepEqual(nodes(words!), nodes(codes!), "the same hypotheses, the same dev scores, the same decisions");
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
