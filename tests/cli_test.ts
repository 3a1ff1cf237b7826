import { deepEqual, equal, match, ok } from "node:assert/strict";
import { COMMANDS } from "../src/cli/commands.ts";
import { arrow, pool, ROOT } from "./helpers/cli.ts";

Deno.test("arrow --help lists every subcommand with a sentence", async () => {
  const r = await arrow(["--help"]);
  equal(r.code, 0);
  for (const c of COMMANDS) {
    match(r.stdout, new RegExp(`^  ${c.name}\\s+[A-Z][^\\n]+\\.$`, "m"), `${c.name} listed with a sentence`);
  }
});

Deno.test("every subcommand has --help", async () => {
  const results = await pool([...COMMANDS], 2, (c) => arrow([c.name, "--help"]));
  COMMANDS.forEach((c, i) => {
    equal(results[i]!.code, 0, c.name);
    match(results[i]!.stdout, new RegExp(`^Usage: arrow ${c.name}`), c.name);
  });
});

Deno.test("arrow --version prints the version from deno.json", async () => {
  const version = JSON.parse(Deno.readTextFileSync(`${ROOT}deno.json`)).version;
  const r = await arrow(["--version"]);
  equal(r.code, 0);
  equal(r.stdout.trim(), `arrow ${version}`);
});

Deno.test("usage errors are one line on stderr and exit 1", async () => {
  const cases: [string[], string][] = [
    [[], "arrow: missing command (see arrow --help)"],
    [["rnu"], 'arrow: unknown command "rnu" (did you mean "run"?) (see arrow --help)'],
    [["run", "--bogus"], "arrow run: unknown option --bogus (see arrow run --help)"],
    [["run"], "arrow run: missing --scenario <name> or <plan.yaml> (see arrow run --help)"],
    [["run", "--scenario"], "arrow run: option --scenario needs a value (see arrow run --help)"],
    [
      ["run", "--scenario", "green", "--tick-ms", "fast"],
      "arrow run: Cannot use --tick-ms fast: a whole number ≥ 0",
    ],
    [["run", "--scenario", "green", "extra.yaml"], "arrow run: give --scenario or a plan file, not both"],
    [["report"], "arrow report: missing run directory (see arrow report --help)"],
    [["replay", "a", "b"], 'arrow replay: unexpected argument "b" (see arrow replay --help)'],
    [["validate"], "arrow validate: missing plan file (see arrow validate --help)"],
    [["scenarios", "x"], 'arrow scenarios: unexpected argument "x" (see arrow scenarios --help)'],
  ];
  const results = await pool(cases, 2, ([args]) => arrow(args));
  cases.forEach(([args, msg], i) => {
    const r = results[i]!;
    equal(r.code, 1, args.join(" "));
    equal(r.stderr.trim(), msg, args.join(" "));
    equal(r.stdout, "", args.join(" "));
  });
});

Deno.test("arrow run names the built-in scenarios when given an unknown one", async () => {
  const r = await arrow(["run", "--scenario", "nope"]);
  equal(r.code, 1);
  match(r.stderr, /unknown scenario "nope"/);
  match(r.stderr, /green, hung, oscillation, plateau/);
});

Deno.test("arrow scenarios lists the 12 built-ins with a description and verdict each", async () => {
  const r = await arrow(["scenarios"]);
  equal(r.code, 0);
  const lines = r.stdout.trim().split("\n");
  equal(lines.length, 12);
  for (const l of lines) {
    match(l, /^[a-z_]+\s+\S.* → (RESEARCH ANSWERED|NEGATIVE RESULT|RESULT WITHHELD|NO VERDICT)$/);
  }
});

Deno.test("arrow run --json prints one object with the documented fields", async () => {
  const dir = await Deno.makeTempDir();
  const r = await arrow(["run", "--scenario", "trap_scope", "--json", "--runs-dir", dir]);
  equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  deepEqual(Object.keys(out).sort(), [
    "baseline",
    "incidents",
    "method",
    "nodes",
    "reason",
    "run_dir",
    "scenario",
    "scores",
    "ticks",
    "unfired_faults",
    "verdict",
  ]);
  deepEqual(out.baseline, { node: "N3", score: 0.6041 });
  equal(out.scores.N3, 0.6041);
  equal(typeof out.scores.N4, "number", "the blocked trainer's best observed score");
  equal(out.scores.N0, null);
  deepEqual(out.unfired_faults, []);
  equal(out.scenario, "trap_scope");
  equal(out.verdict, "RESULT WITHHELD");
  equal(out.nodes.N4, "blocked");
  deepEqual(out.incidents, [{
    tick: out.incidents[0].tick,
    type: "SCOPE_VIOLATION",
    node: "N4",
    ladder: "blame_routing",
  }]);
  ok(out.run_dir.startsWith(await Deno.realPath(dir)));

  const report = await arrow(["report", out.run_dir]);
  equal(report.code, 0);
  match(report.stdout, /## Verdict: RESULT WITHHELD/);
  match(report.stdout, /SCOPE_VIOLATION on N4/);

  const replay = await arrow(["replay", out.run_dir, "--check"]);
  equal(replay.code, 0, replay.stderr);
  match(replay.stdout, /N4 running→blocked/);
  match(replay.stdout, /rebuilt state equals state\.json byte for byte/);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("deno task demo prints the SCOPE_VIOLATION and the verdict", async () => {
  const dir = await Deno.makeTempDir();
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["task", "-q", "demo", "--runs-dir", dir],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(out.stdout);
  equal(out.code, 0, new TextDecoder().decode(out.stderr));
  match(stdout, /SCOPE_VIOLATION\s+N4 wrote outside its lane \(N3\/leaked_by_N4\.txt\) — blocked, blamed/);
  match(stdout, /^RESULT WITHHELD$/m);
  match(stdout, /^run directory: /m);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("arrow report explains how to recover a missing or corrupt state.json", async () => {
  const dir = await Deno.makeTempDir();
  Deno.writeTextFileSync(`${dir}/replay.jsonl`, "");
  Deno.writeTextFileSync(`${dir}/state.json`, "{ torn");
  const r = await arrow(["report", dir]);
  equal(r.code, 1);
  match(r.stderr, /state\.json is corrupt/);
  match(r.stderr, /arrow resume .* \(rebuilds the state from replay\.jsonl\)/);
  await Deno.remove(dir, { recursive: true });
});

const hasScript = await new Deno.Command("sh", { args: ["-c", "command -v script"], stdout: "null" })
  .output()
  .then((o) => o.success, () => false);
if (!hasScript) {
  console.log("cli_test: the terminal case is ignored — util-linux `script` is not installed, so no pty");
}

Deno.test({
  name: "arrow run on a terminal shows live progress: tick line, incidents as they happen, then the table",
  ignore: !hasScript,
}, async (t) => {
  const dir = await Deno.makeTempDir();
  const cmd = `${Deno.execPath()} run -A ${ROOT}src/cli/main.ts run --scenario hung --runs-dir ${dir}`;
  const out = await new Deno.Command("script", {
    args: ["-qec", cmd, "/dev/null"],
    env: { COLUMNS: "200" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  await t.step("exit 0", () => equal(out.code, 0));
  await t.step("the status line is rewritten in place each tick", () => {
    const rewrites = text.split("\r\u001b[2Ktick ").length - 1;
    ok(rewrites >= 10, `${rewrites} in-place rewrites`);
    match(text, /tick 10 .*▶ N4 \(step 14, best 0\.591\)/);
  });
  await t.step("incidents appear as they happen, before the run ends", () => {
    const first = text.indexOf("HUNG_RESTART");
    ok(first > 0 && first < text.indexOf("node  kind"));
  });
  await t.step("the end shows the table, the verdict and the run directory", () => {
    match(text, /node\s+kind\s+role\s+status/);
    match(text, /NEGATIVE RESULT/);
    match(text, /run directory: /);
  });
  await Deno.remove(dir, { recursive: true });
});

Deno.test("arrow run --help names every built-in real worker", async () => {
  const { BUILTINS } = await import("../src/workers/real/registry.ts");
  const { BUILTIN_WORKERS } = await import("../src/cli/run.ts");
  deepEqual([...BUILTIN_WORKERS].sort(), Object.keys(BUILTINS).sort());
  const r = await arrow(["run", "--help"]);
  for (const name of Object.keys(BUILTINS)) match(r.stdout, new RegExp(`\\b${name}\\b`));
});
