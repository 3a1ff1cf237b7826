/**
 * A new user's path through the CLI (issue 24): help that fits the terminal and answers `arrow help <cmd>`,
 * one kind of message for a bad whole number, every run-level command working on a tree run, and bad or
 * doubtful CSVs refused or flagged with the file named, leaving no run directory behind.
 *
 * @module
 */
import { equal, match, ok } from "node:assert/strict";
import { COMMANDS } from "../src/cli/commands.ts";
import { arrow, pool } from "./helpers/cli.ts";
import { BWRAP } from "./helpers/needs.ts";
import { type Script, startScriptedServer } from "./llm/scripted_server.ts";

const SMALL = new URL("./fixtures/tree/small.csv", import.meta.url).pathname;
/** The widest help line (the code's lineWidth): wider ones wrap badly in a terminal of that width. */
const HELP_WIDTH = 110;

Deno.test("no line of arrow --help or of any arrow help <cmd> is wider than the help's width", async () => {
  const results = await pool([["--help"], ...COMMANDS.map((c) => ["help", c.name])], 2, (a) => arrow(a));
  for (const r of results) equal(r.code, 0, r.stderr);
  results.slice(1).forEach((r, i) => match(r.stdout, new RegExp(`^Usage: arrow ${COMMANDS[i]!.name}`)));
  const wide = results.flatMap((r) => r.stdout.split("\n").filter((l) => [...l].length > HELP_WIDTH));
  equal(wide.join("\n"), "");
});

Deno.test("help names what it accepts: report takes latest, proxy takes --runs-dir", async () => {
  const [report, proxy] = await pool([["report", "--help"], ["proxy", "--help"]], 2, (a) => arrow(a));
  match(report!.stdout, /^Usage: arrow report <run-dir \| run-id \| latest>/);
  match(proxy!.stdout, /--runs-dir <dir>/);
});

Deno.test("--cycles -1 and --cycles 0 get the same kind of message, exit 1", async () => {
  const data = ["--data", SMALL, "--target", "label"];
  const [neg, zero] = await pool([["-1"], ["0"]], 2, ([n]) => arrow(["tree", ...data, "--cycles", n!]));
  equal(neg!.code, 1);
  equal(zero!.code, 1);
  equal(neg!.stderr.trim(), "arrow tree: Cannot use --cycles -1: a whole number from 1 to 10000");
  equal(zero!.stderr.trim(), "arrow tree: Cannot use --cycles 0: a whole number from 1 to 10000");
});

Deno.test("report, replay, replay --check, resume and tree --resume all work on a tree run via latest", async () => {
  const runsDir = Deno.makeTempDirSync({ prefix: "arrow-newcomer-" });
  try {
    const made = await arrow([
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
    equal(made.code, 0, made.stderr);
    const runDir = JSON.parse(made.stdout).run_dir as string;
    const at = ["--runs-dir", runsDir];

    const report = await arrow(["report", "latest", ...at]);
    equal(report.code, 0, report.stderr);
    equal(report.stdout.trimEnd(), Deno.readTextFileSync(`${runDir}/report/report.md`).trimEnd());

    const replay = await arrow(["replay", "latest", ...at]);
    equal(replay.code, 0, replay.stderr);
    match(replay.stdout, /^step {3}0 {2}start: 160 rows, target label \(binary\), accuracy$/m);
    match(replay.stdout, /gate n0: held-out \d\.\d{4} → baseline/);
    match(replay.stdout, /RESEARCH ANSWERED|NEGATIVE RESULT/);

    const check = await arrow(["replay", "--check", "latest", ...at]);
    equal(check.code, 0, check.stderr);
    match(check.stdout, /rebuilt state equals state\.json byte for byte/);
    // An edited state.json is caught.
    const state = Deno.readTextFileSync(`${runDir}/state.json`);
    Deno.writeTextFileSync(`${runDir}/state.json`, state.replace('"cycle": 1', '"cycle": 7'));
    const caught = await arrow(["replay", "--check", "latest", ...at]);
    equal(caught.code, 1);
    match(caught.stderr, /differs from state\.json/);
    Deno.writeTextFileSync(`${runDir}/state.json`, state);

    // A finished run has nothing to resume, by either command, and says so; a lost report comes back.
    Deno.removeSync(`${runDir}/report/report.md`);
    const resume = await arrow(["resume", "latest", ...at]);
    equal(resume.code, 0, resume.stderr);
    match(
      resume.stdout,
      /already finished at step \d+ with (RESEARCH ANSWERED|NEGATIVE RESULT); nothing to resume \(its files were rebuilt from its store, tree\.db\)\. See: arrow report /,
    );
    ok(Deno.statSync(`${runDir}/report/report.md`).isFile);
    const treeResume = await arrow(["tree", "--resume", "latest", ...at]);
    equal(treeResume.code, 0, treeResume.stderr);
    match(treeResume.stdout, /already finished at step \d+ with [A-Z ]+; nothing to resume\. See: /);
    ok(!/nodes in 1 cycles|arrow tree --resume →/.test(treeResume.stdout), treeResume.stdout);
    const asJson = await arrow(["tree", "--resume", "latest", "--json", ...at]);
    equal(asJson.code, 0, asJson.stderr);
    equal(JSON.parse(asJson.stdout).resumed, false);

    const more = await arrow(["tree", "--resume", "latest", "--cycles", "12", ...at]);
    equal(more.code, 1);
    match(more.stderr, /--resume continues a run with the settings it began with .*cannot change --cycles/);
    const tick = await arrow(["resume", "latest", "--tick-ms", "5", ...at]);
    equal(tick.code, 1);
    match(tick.stderr, /--tick-ms is for task-graph runs; .* is a tree run/);
  } finally {
    Deno.removeSync(runsDir, { recursive: true });
  }
});

function csv(dir: string, name: string, text: string, bom = false): string {
  const path = `${dir}/${name}`;
  Deno.writeTextFileSync(path, (bom ? "\uFEFF" : "") + text);
  return path;
}

/** Rows `a,b,<label>` with labels from `label(i)`. */
const rows = (n: number, label: (i: number) => string) =>
  "a,b,y\n" + Array.from({ length: n }, (_, i) => `${i},${(i * 7) % 5},${label(i)}\n`).join("");

Deno.test("bad CSVs are refused with exit 1 naming the file, by arrow tree and arrow run alike, leaving no run", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "arrow-newcomer-csv-" });
  const runsDir = `${dir}/runs`;
  try {
    const cases: [string, RegExp][] = [
      [`${dir}/nope.csv`, /nope\.csv: Cannot read the CSV: no such file/],
      [csv(dir, "one.csv", rows(40, () => "1")), /one\.csv: the target "y" has one class \("1"/],
      [csv(dir, "tiny.csv", rows(8, (i) => String(i % 2))), /tiny\.csv: 8 rows with a target; at least 10/],
      [
        csv(dir, "semi.csv", rows(40, (i) => String(i % 2)).replaceAll(",", ";"), true),
        /semi\.csv:1: read as one column "a;b;y": it looks separated by ';', not commas/,
      ],
    ];
    const runs = await pool(cases, 2, async ([file]) => [
      await arrow(["tree", "--data", file, "--target", "y", "--runs-dir", runsDir]),
      await arrow(["run", "--real", "--data", file, "--target", "y", "--runs-dir", runsDir]),
    ]);
    cases.forEach(([file, want], i) => {
      for (const r of runs[i]!) {
        equal(r.code, 1, `${file}: ${r.stderr}`);
        match(r.stderr, want);
        ok(!/internal error|at file:/.test(r.stderr), r.stderr);
      }
    });
    // A yes-only target (read as boolean, so "two classes" by its type) is one class too; arrow run refuses
    // any text cell first, so this one is arrow tree's.
    const yes = csv(dir, "yes.csv", rows(40, () => "yes"));
    const r = await arrow(["tree", "--data", yes, "--target", "y", "--runs-dir", runsDir]);
    equal(r.code, 1, r.stderr);
    match(r.stderr, /yes\.csv: the target "y" has one class \("yes" on every row/);
    let left: string[] = [];
    try {
      left = [...Deno.readDirSync(runsDir)].map((d) => d.name);
    } catch {
      left = [];
    }
    equal(left.join(), "", "no run directory is left behind");
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("a small file runs but warns; dropped rows, yes/no labels and an empty column are said aloud", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "arrow-newcomer-csv-" });
  try {
    const text = "a,b,empty,y\n" +
      Array.from(
        { length: 30 },
        (_, i) => `${i},${(i * 7) % 5},,${i % 10 === 0 ? "" : i % 3 ? "yes" : "no"}\n`,
      )
        .join("");
    const file = csv(dir, "small.csv", text);
    const r = await arrow([
      "tree",
      "--data",
      file,
      "--target",
      "y",
      "--cycles",
      "1",
      "--executors",
      "1",
      "--runs-dir",
      `${dir}/runs`,
    ]);
    equal(r.code, 0, r.stderr);
    match(r.stderr, /^note: 3 of 30 rows have no "y" value and are dropped; 27 rows are used$/m);
    match(
      r.stderr,
      /^note: target "y" is yes\/no: its classes keep the file's labels "no" and "yes" \(the positive class is "yes"\)$/m,
    );
    match(r.stderr, /^note: column "empty" is empty on every row: dropped/m);
    match(
      r.stderr,
      /^warning: .*small\.csv has only 27 rows with a target: held-out and test parts .*results on so few rows are noise$/m,
    );
    const report = await arrow(["report", "latest", "--runs-dir", `${dir}/runs`]);
    equal(report.code, 0, report.stderr);
    match(report.stdout, /3 of 30 rows have no "y" value and are dropped/);
    match(report.stdout, /— 27 of 30 rows used, 3 dropped: missing target \(/);
    match(report.stdout, /results on so few rows are noise/);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("an LLM ideator whose replies do not parse says why on the console; no key reaches a file of the run", async () => {
  const key = "sk-arrow-test-0123456789abcdefghij";
  const planted = ["Bearer sk-planted-ABCDEFGHIJKLMNOPQRSTUV", "key=0123456789abcdef0123456789abcdef"];
  await using server = await startScriptedServer({
    rules: [{
      when: { system: "ideator of Arrow's tree mode" },
      reply: `No JSON today. ${planted.join(" ")}`,
    }],
  });
  const runsDir = Deno.makeTempDirSync({ prefix: "arrow-newcomer-llm-" });
  try {
    const r = await arrow([
      "tree",
      "--data",
      SMALL,
      "--target",
      "label",
      "--cycles",
      "1",
      "--executors",
      "2",
      "--ideator",
      "llm",
      "--unsandboxed",
      "--runs-dir",
      runsDir,
    ], {
      env: {
        ARROW_LLM_BASE_URL: server.url,
        ARROW_LLM_API_KEY: key,
        ARROW_LLM_MODEL: "scripted",
        ARROW_LLM_MAX_RETRIES: "0",
      },
    });
    equal(r.code, 0, r.stderr);
    match(r.stdout, /expand n0 → 0 hypothesis\(es\)\n {2}! ideator: the reply held no JSON object\n/);
    ok(server.calls >= 1);
    const [run] = [...Deno.readDirSync(runsDir)].map((d) => `${runsDir}/${d.name}`);
    const log = Deno.readTextFileSync(`${run}/logs/llm.jsonl`);
    ok(log.includes("No JSON today. Bearer [REDACTED] key=[REDACTED]"), log.slice(0, 400));
    const leaks: string[] = [];
    const walk = (dir: string) => {
      for (const e of Deno.readDirSync(dir)) {
        const p = `${dir}/${e.name}`;
        if (e.isDirectory) walk(p);
        else if (e.isFile) {
          const bytes = new TextDecoder().decode(Deno.readFileSync(p));
          for (const s of [key, "sk-planted-ABCDEFGHIJKLMNOPQRSTUV", "0123456789abcdef0123456789abcdef"]) {
            if (bytes.includes(s)) leaks.push(`${p.slice(run!.length)}: ${s}`);
          }
        }
      }
    };
    walk(run!);
    equal(leaks.join("\n"), "");
  } finally {
    Deno.removeSync(runsDir, { recursive: true });
  }
});

Deno.test("arrow report shows LLM use per node and in total from the run's usage files (cost only when known)", async () => {
  const script = JSON.parse(
    Deno.readTextFileSync(new URL("./fixtures/live/research.json", import.meta.url)),
  ) as Script;
  await using server = await startScriptedServer(script);
  const runsDir = Deno.makeTempDirSync({ prefix: "arrow-newcomer-live-" });
  try {
    const q = "Does a small trained model beat a simple baseline on the seeded regression data?";
    const r = await arrow([
      "research",
      q,
      "--json",
      "--runs-dir",
      runsDir,
      ...(BWRAP ? [] : ["--unsandboxed"]),
    ], {
      env: { ARROW_LLM_BASE_URL: server.url, ARROW_LLM_API_KEY: "sk-test-live", ARROW_LLM_MODEL: "scripted" },
    });
    equal(r.code, 0, r.stderr);
    const runDir = JSON.parse(r.stdout).run_dir as string;
    const lines = Deno.readTextFileSync(`${runDir}/.arrow/usage/N4.jsonl`).trim().split("\n").map((l) =>
      JSON.parse(l) as { call: string; tokens: number }
    );
    const calls = new Map(lines.map((l) => [l.call, l.tokens]));
    const tokens = [...calls.values()].reduce((a, b) => a + b, 0);
    ok(tokens > 0);
    const report = await arrow(["report", "latest", "--runs-dir", runsDir]);
    equal(report.code, 0, report.stderr);
    match(
      report.stdout,
      /^## LLM use\n\n\| node \| calls \| tokens \|\n/m,
      "no cost column: the API gave none",
    );
    match(report.stdout, new RegExp(`^\\| N4 \\| ${calls.size} \\| ${tokens} \\|$`, "m"));
    const rows = [...report.stdout.matchAll(/^\| (N\d+) \| (\d+|—) \| (\d+) \|$/gm)];
    const sum = (k: 2 | 3) => rows.reduce((n, m) => n + (m[k] === "—" ? 0 : Number(m[k])), 0);
    match(report.stdout, new RegExp(`^\\| \\*\\*total\\*\\* \\| ${sum(2)} \\| ${sum(3)} \\|$`, "m"));
  } finally {
    Deno.removeSync(runsDir, { recursive: true });
  }
});
