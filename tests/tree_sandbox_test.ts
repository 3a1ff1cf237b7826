/**
 * Executors under overwatch, with real children: hypothesis modules that try to read the held-out and test
 * labels (the user's CSV, by a read and by a text import), write outside their scope, hang, lie about their
 * score, or simply fail. Each gets nothing, is blamed with the graph path's incident types, and becomes a
 * failed-informative node; the honest one is measured. Run under Deno's permissions alone, and again under
 * bubblewrap when it is installed.
 *
 * @module
 */
import { equal, ok } from "node:assert/strict";
import { BWRAP, needs, NO_BWRAP } from "./helpers/needs.ts";
import type { ScopeEvidence } from "../src/model/evidence.ts";
import type { Ideator } from "../src/tree/loop.ts";
import { startTree } from "../src/tree/run.ts";
import type { Hypothesis } from "../src/tree/types.ts";

const CSV = new URL("./fixtures/tree/small.csv", import.meta.url).pathname;
const MODULES = new URL("./fixtures/tree/modules/", import.meta.url).pathname;
const bwrap = BWRAP;
const noBwrap = needs("tree_sandbox_test", "the bubblewrap case", NO_BWRAP);

/** Proposes the given modules once, under the root, then nothing. */
function fixtures(names: string[], vars: Record<string, string>): Ideator {
  let used = false;
  return {
    ideas: () => {
      if (used) return Promise.resolve({ hypotheses: [], problems: [], tokens: 0 });
      used = true;
      const hypotheses = names.map((name): Hypothesis => {
        let source = Deno.readTextFileSync(`${MODULES}${name}.ts`);
        for (const [k, v] of Object.entries(vars)) source = source.replaceAll(k, v);
        return {
          key: `fixture:${name}`,
          family: "llm",
          columns: [],
          params: {},
          text: `Fixture ${name}.`,
          step: { path: `steps/001_${name}.ts`, source },
          model: {},
          source: "llm",
          tokens: 0,
        };
      });
      return Promise.resolve({ hypotheses, problems: [], tokens: 0 });
    },
  };
}

const NAMES = ["honest", "reads_data", "writes_out", "hangs", "lies", "throws"];

async function sandboxRun(box: string | null) {
  const runsDir = Deno.makeTempDirSync({ prefix: "arrow-tree-sandbox-" });
  const runDir = `${runsDir}/run`;
  const outside = `${runsDir}/escape.txt`;
  const sibling = `${runDir}/nodes/n1/planted.txt`;
  try {
    const out = await startTree({
      runDir,
      runsDir,
      data: CSV,
      target: "label",
      cycles: 1,
      executors: NAMES.length,
      seed: 0,
      ideator: "llm",
      llm: fixtures(NAMES, {
        __CSV__: CSV,
        __SPLITS__: `${runDir}/splits.json`,
        __OUTSIDE__: outside,
        __SIBLING__: sibling,
      }),
      search: "tree",
      insights: true,
      // A hang window (K_FREEZE observations) well above a fold's time on a loaded machine, where six
      // executors and their standbys share two cores.
      observeMs: 4000,
      wallMs: 60_000,
      bwrap: box,
    });
    const s = out.state;
    const node = (name: string) => s.nodes[`n${NAMES.indexOf(name) + 1}`]!;
    const incidents = (name: string) => out.incidents.filter((i) => i.node === node(name).id);

    ok(node("honest").dev, "the honest hypothesis is measured");
    equal(incidents("honest").length, 0);

    const read = incidents("reads_data");
    equal(read.length, 1);
    equal(read[0]!.type, "SCOPE_VIOLATION");
    const ev = read[0]!.evidence as ScopeEvidence;
    ok(
      ev.attempts.some((a) => a.path === CSV && a.op === "read" && a.stopped_by),
      JSON.stringify(ev.attempts),
    );
    ok(
      ev.attempts.some((a) => a.path === `${runDir}/splits.json` && a.op === "read" && a.stopped_by),
      `the run's splits.json is outside the executor's lane: ${JSON.stringify(ev.attempts)}`,
    );
    ok(exists(`${runDir}/splits.json`), "splits.json was there to be refused");
    equal(node("reads_data").status, "failed-informative");
    ok(!String(node("reads_data").lesson).includes("LEAK"), "nothing of the data reached the module");

    const wrote = incidents("writes_out");
    equal(wrote[0]?.type, "SCOPE_VIOLATION");
    const paths = (wrote[0]!.evidence as ScopeEvidence).paths;
    ok(paths.includes(outside) && paths.includes(sibling), paths.join(", "));
    for (const p of [outside, sibling]) equal(exists(p), false, `${p} was not written`);

    const hung = incidents("hangs");
    equal(hung.map((i) => `${i.type}/${i.ladder}`).join(" "), "HUNG_RESTART/bounce HUNG_RESTART/fuse");
    equal(node("hangs").status, "failed-informative");

    // The liar's tricks stay inside its own workers: its claim is what its artifact earns, and Arrow's
    // recomputation agrees (a claim that did not agree would be refused: step_test covers that rule).
    equal(incidents("lies").length, 0);
    const liar = node("lies");
    ok(liar.dev && liar.claimed !== null, `the liar is measured: ${liar.lesson}`);
    ok(liar.claimed !== 0.999 && Math.abs(liar.claimed! - liar.dev!.mean) <= 0.003, String(liar.claimed));

    equal(incidents("throws").length, 0);
    equal(node("throws").status, "failed-informative");
    ok(node("throws").lesson?.includes("cabin"), node("throws").lesson ?? "");

    equal(s.verdict === "RESEARCH ANSWERED" || s.verdict === "NEGATIVE RESULT", true);
    equal(out.gateReads.heldout, s.heldout.used, "every held-out read is a counted query");
    equal(
      out.gateReads.test,
      (s.incumbent === "n0" ? 1 : 2) + 3,
      "the test split is read once per artifact, and once for each reference (refit, strong default, trivial)",
    );
  } finally {
    Deno.removeSync(runsDir, { recursive: true });
  }
}

function exists(p: string): boolean {
  try {
    Deno.statSync(p);
    return true;
  } catch {
    return false;
  }
}

Deno.test("executors under Deno's permissions: escapes blamed, hangs fused, lies kept from the claim, failures kept as lessons", async () => {
  await sandboxRun(null);
});

Deno.test({
  name: "executors under bubblewrap: the same behaviours, the same verdicts on them",
  ignore: noBwrap,
  fn: async () => {
    await sandboxRun(bwrap);
  },
});

/**
 * The same run with the harness started from arrow itself (`arrow __worker tree_harness`, as a compiled
 * arrow does; ARROW_WORKER_MODE=self forces it from source): this file run as a script in a child whose
 * environment asks for it, so the lane comes from the harness's own worker (harness/lane.ts), not from
 * `deno run` flags — and the escapes are refused and named the same.
 */
async function selfExecuted(box: "bwrap" | "none") {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--no-prompt", "--quiet", new URL(import.meta.url).pathname, box],
    env: { ARROW_WORKER_MODE: "self" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  equal(out.code, 0, text);
  ok(text.includes("self-executed harness: ok"), text);
}

Deno.test("executors whose harness runs from arrow itself (self-executing mode): the same behaviours", async () => {
  await selfExecuted("none");
});

Deno.test({
  name: "self-executing harness under bubblewrap: the same behaviours",
  ignore: noBwrap,
  fn: async () => {
    await selfExecuted("bwrap");
  },
});

if (import.meta.main) {
  // The child of `selfExecuted`: the harness must really be started as `arrow __worker tree_harness`.
  const sandbox = await import("../src/tree/execute/sandbox.ts");
  const ctx = {
    runDir: "/nonexistent/run",
    runsDir: "/nonexistent",
    dataDir: "/nonexistent/run/data",
    taskFile: "/nonexistent/run/data/task.json",
    devFile: "/nonexistent/run/data/dev.csv",
    userCsv: CSV,
    bwrap: null,
  };
  const cmd = sandbox.childCommand(ctx, "execute", "n1", "/nonexistent/run/nodes/n1", "/nonexistent/a.jsonl");
  ok(cmd.args.includes("tree_harness") && cmd.sandbox === "self", cmd.args.join(" "));
  await sandboxRun(Deno.args[0] === "bwrap" ? bwrap : null);
  console.log("self-executed harness: ok");
}
