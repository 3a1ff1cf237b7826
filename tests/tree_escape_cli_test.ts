/**
 * `arrow tree` end to end with hostile hypothesis code: the LLM ideator (a scripted OpenAI-compatible
 * server) proposes a step module that, as it loads, writes to /tmp, to $HOME and into the run's own
 * directory. Under bubblewrap the executor runs in the one layout builder's lane — /tmp, $HOME and the
 * project directory shadows of its own, the run hidden — and the tree's black box names every attempt with
 * its path, operation and the layer that stopped it; nothing lands on the host and nothing slips past into
 * a shadow unseen. Bare (`--unsandboxed`, bubblewrap hidden), Deno's permissions alone stop and name the same
 * writes.
 *
 * Deno's layer stops such code first (a step runs in a worker that can write nothing), so what bubblewrap's
 * shadows would catch — a write by a program Deno did not start — cannot be provoked from a step module; the
 * shadows themselves are exercised on a real executor command line in tree_shadow_test.ts.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { arrow } from "./helpers/cli.ts";
import { MODES } from "./helpers/hostile.ts";
import { exists } from "../src/cli/rundir.ts";
import { needs, NO_BWRAP } from "./helpers/needs.ts";
import { type Script, startScriptedServer } from "./llm/scripted_server.ts";
import { listFiles } from "../src/runtime/scope/scope_files.ts";
import { MAX_SHADOWED_ENTRIES } from "../src/runtime/sandbox/bwrap.ts";

const CSV = new URL("./fixtures/tree/small.csv", import.meta.url).pathname;

/**
 * A module that tries writes outside its lane as it loads (and prints `said` to stderr), then is an identity
 * step.
 */
function hostile(paths: string[], said: string[] = []): Script {
  const module = [
    'import type { FeatureTransform } from "tabular";',
    `for (const p of ${JSON.stringify(paths)}) {`,
    "  try {",
    '    Deno.writeTextFileSync(p, "was here");',
    "  } catch {",
    "    // refused",
    "  }",
    "}",
    `for (const line of ${JSON.stringify(said)}) console.error(line);`,
    "const step: FeatureTransform<null> = { fit: () => null, transform: (_s, rows) => rows };",
    "export default step;",
  ].join("\n");
  const reply = JSON.stringify({
    hypothesis: "Leave a mark outside the lane.",
    family: "llm",
    columns: [],
    module,
  });
  return {
    rules: [{ when: { system: "ideator of Arrow's tree mode" }, reply: "```json\n" + reply + "\n```\n" }],
  };
}

interface Attempt {
  path: string;
  op: string;
  stopped_by: string | null;
}

for (const mode of MODES) {
  Deno.test({
    name:
      `[${mode.name}] arrow tree: a hypothesis that writes outside its lane is stopped and on the run's record`,
    ignore: mode.name === "bwrap" && needs("tree_escape_cli_test", "the bubblewrap mode", NO_BWRAP),
    fn: async () => {
      const tmp = Deno.makeTempDirSync({ prefix: "arrow-tree-escape-" });
      const home = `${tmp}/home`;
      Deno.mkdirSync(home);
      const tag = crypto.randomUUID().slice(0, 8);
      const evil = { tmp: `/tmp/arrow-tree-evil-${tag}.txt`, home: `${home}/evil.txt` };
      const runsDir = `${tmp}/runs`;
      await using server = await startScriptedServer(hostile([evil.tmp, evil.home, `${runsDir}/evil.txt`]));
      try {
        const r = await treeRun(mode, home, runsDir, server.url);
        equal(r.code, 0, r.stderr.slice(-2000));
        const out = JSON.parse(r.stdout);
        const sv = violations(out.run_dir);
        equal(sv.length, 1, JSON.stringify(sv));
        equal(sv[0]!.node, "n1");
        const named = sv[0]!.evidence.attempts;
        for (const p of [evil.tmp, evil.home, `${runsDir}/evil.txt`]) {
          const a = named.find((x) => x.path === p);
          ok(a && a.op === "write" && a.stopped_by, `the record names ${p}: ${JSON.stringify(named)}`);
        }
        for (const p of [evil.tmp, evil.home, `${runsDir}/evil.txt`]) {
          ok(!exists(p), `${p} was not written on the host`);
        }
        if (mode.name === "bwrap") {
          // Every child had its shadows, and nothing landed in one unseen.
          const shadows = `${out.run_dir}/.arrow/shadow/tree`;
          ok(exists(shadows), "the executors ran in the layout builder's lanes");
          const landed = listFiles(shadows).filter((f) => f.endsWith("evil.txt"));
          equal(landed.length, 0, landed.join(", "));
        }
      } finally {
        Deno.removeSync(tmp, { recursive: true });
        if (exists(evil.tmp)) Deno.removeSync(evil.tmp);
      }
    },
  });
}

/** One cycle of one LLM executor (the scripted server at `url`), with `home` as $HOME. */
function treeRun(mode: (typeof MODES)[number], home: string, runsDir: string, url: string) {
  return arrow([
    "tree",
    "--data",
    CSV,
    "--target",
    "label",
    "--cycles",
    "1",
    "--executors",
    "1",
    "--ideator",
    "llm",
    "--runs-dir",
    runsDir,
    "--json",
    ...mode.flags,
  ], {
    env: {
      PATH: mode.path,
      HOME: home,
      DENO_DIR: Deno.env.get("DENO_DIR") ?? `${Deno.env.get("HOME")}/.cache/deno`,
      ARROW_LLM_BASE_URL: url,
      ARROW_LLM_API_KEY: "test-key",
      ARROW_LLM_MODEL: "scripted",
    },
  });
}

interface Violation {
  type: string;
  node: string;
  evidence: { writer: string; attempts: (Attempt & { seen_in?: string })[] };
}

/** The run's SCOPE_VIOLATION incidents. */
function violations(runDir: string): Violation[] {
  return Deno.readTextFileSync(`${runDir}/incidents.jsonl`).split("\n").filter(Boolean)
    .map((l) => JSON.parse(l) as Violation).filter((i) => i.type === "SCOPE_VIOLATION");
}

for (const mode of MODES) {
  Deno.test({
    name:
      `[${mode.name}] arrow tree: a $HOME bound read-only is on the run's record, and so is a write there`,
    ignore: mode.name === "bwrap" && needs("tree_escape_cli_test", "the bubblewrap mode", NO_BWRAP),
    fn: async () => {
      const tmp = Deno.makeTempDirSync({ prefix: "arrow-tree-refused-" });
      // A $HOME past MAX_SHADOWED_ENTRIES: bubblewrap binds it read-only rather than shadowing its top level.
      const home = `${tmp}/home`;
      for (let i = 0; i <= MAX_SHADOWED_ENTRIES; i++) Deno.mkdirSync(`${home}/d${i}`, { recursive: true });
      const written = `${home}/d0/evil.txt`;
      // A step cannot start a program (Deno refuses it): the line a program it started would print when the
      // read-only mount refused its write stands in for one. Only a lane Arrow bound read-only counts, and
      // the line blames its author: the executor it came from.
      const refused = `${home}/d1/evil.txt`;
      const said = [`sh: 1: cannot create ${refused}: Read-only file system`];
      await using server = await startScriptedServer(hostile([written], said));
      try {
        const r = await treeRun(mode, home, `${tmp}/runs`, server.url);
        equal(r.code, 0, r.stderr.slice(-2000));
        const out = JSON.parse(r.stdout);
        const sv = violations(out.run_dir);
        equal(sv.length, 1, JSON.stringify(sv));
        equal(sv[0]!.node, "n1");
        equal(sv[0]!.evidence.writer, "n1");
        const named = sv[0]!.evidence.attempts;
        // Deno's layer stops the step's own write first, and names it.
        ok(
          named.some((a) => a.path === written && a.op === "write" && a.stopped_by === "deno"),
          JSON.stringify(named),
        );
        const state = JSON.parse(Deno.readTextFileSync(`${out.run_dir}/state.json`));
        const report = Deno.readTextFileSync(`${out.run_dir}/report/report.md`);
        const byStderr = named.filter((a) => a.stopped_by === "read-only mount");
        if (mode.name === "bwrap") {
          deepEqual(byStderr, [
            {
              path: refused,
              op: "write",
              stopped_by: "read-only mount",
              seen_in: "the program's stderr",
              reverted: false,
            },
          ]);
          // The lane is on the node's record and in the report, with the limit it is past.
          const why = `${
            MAX_SHADOWED_ENTRIES + 1
          } entries, more than ${MAX_SHADOWED_ENTRIES} (MAX_SHADOWED_ENTRIES)`;
          deepEqual(state.nodes.n1.refused, [{ attempt: 1, by: "worker", path: home, why }]);
          ok(state.nodes.n0.refused?.length, "the starting artifact's executor had the same lane");
          // And so did every later child that ran the start's artifact: the gate's, the final test's.
          const by = new Set(state.nodes.n0.refused.map((r: { by: string }) => r.by));
          ok(["worker", "gate", "test"].every((b) => by.has(b)), JSON.stringify(state.nodes.n0.refused));
          ok(report.includes("## Lanes bound read-only"), report);
          ok(report.includes(`| n1 | 1 | worker | ${home} |`), report);
        } else {
          // Bare, no lane is a read-only bind: a line naming one blames nothing, and nothing is noted.
          deepEqual(byStderr, []);
          equal(state.nodes.n1.refused, undefined);
          ok(!report.includes("Lanes bound read-only"), report);
        }
        ok(!exists(written) && !exists(refused), "nothing landed in $HOME");
      } finally {
        Deno.removeSync(tmp, { recursive: true });
      }
    },
  });
}
