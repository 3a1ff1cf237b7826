/**
 * Any program can be a node's worker. A non-Deno child (Python) that writes outside its scope is stopped by
 * bubblewrap — the write lands in the node's shadow, where the supervisor sees it and blames the writer — and,
 * without bubblewrap, the fingerprint guard still sees the foreign change and reverts it.
 */
import { deepEqual, equal, match } from "node:assert/strict";
import { BWRAP, needs, NO_BWRAP } from "./helpers/needs.ts";
import { loadPlan } from "../src/graph/load.ts";
import type { Plan } from "../src/graph/types.ts";
import { PYTHON, runReal } from "./helpers/real.ts";

/**
 * A → B, and Aux beside them (ordered before B, so it has run when B does, even when programs run one at a
 * time). B writes its own scope, its input A and the unrelated Aux — only the first is its lane — three times,
 * a few ticks apart. Without bubblewrap one write could land between a tick's guard check and its scope record
 * and be absorbed unseen (an engine race, see the issue-4 report); three rounds make the test independent of
 * it.
 */
const STRAY = [
  "import json, sys, time",
  "for round in range(3):",
  "    for path in sys.argv[1:]:",
  "        try:",
  "            open(path, 'w').write(f'written by B, round {round}\\n')",
  "        except OSError as e:",
  "            print('refused:', path, e, flush=True)",
  "    time.sleep(0.25)",
  "json.dump({'node': 'B'}, open('results.json', 'w'))",
].join("\n");

function plan(): Plan {
  const done = (id: string) => ({
    type: "command",
    argv: ["sh", "-c", `echo ${id} > out.txt && printf '{"node":"${id}"}' > results.json`],
  });
  const text = JSON.stringify({
    question: "Is a stray write by any program caught?",
    protocol: { version: "p1", metric: "dev_r2", direction: "maximize" },
    nodes: [
      // A custom acceptance command: it runs under bubblewrap too and must see the scope.
      {
        id: "Aux",
        kind: "fast",
        role: "other",
        worker: done("Aux"),
        acceptance: ["sh", "-c", "grep -q Aux out.txt"],
      },
      { id: "A", kind: "fast", role: "other", worker: done("A") },
      {
        id: "B",
        kind: "fast",
        role: "other",
        worker: {
          type: "command",
          argv: [PYTHON, "-c", STRAY, "own.txt", "{nodes}/A/leak.txt", "{nodes}/Aux/leak.txt"],
        },
      },
    ],
    edges: [{ from: "A", to: "B", kind: "artifact" }],
  });
  const r = loadPlan(text, "stray.yaml");
  if (!r.plan) throw new Error(JSON.stringify(r.errors));
  return r.plan;
}

const exists = (p: string) => {
  try {
    Deno.statSync(p);
    return true;
  } catch {
    return false;
  }
};

Deno.test({
  name: "a Python child's write outside its scope is stopped by bubblewrap and blamed on it",
  ignore: needs("real_sandbox_test", "the bubblewrap case", NO_BWRAP),
  fn: async () => {
    const r = await runReal("stray_bwrap", plan(), [], { bwrap: BWRAP });
    try {
      deepEqual(r.triples, [["SCOPE_VIOLATION", "B", "blame_routing"]]);
      const ev = r.incidents[0]!.evidence as { writer: string; attempts: unknown[] };
      equal(ev.writer, "B");
      // No silent refusal: the write into B's input A lands in the copy B reads A through, and is named
      // beside the write into the unrelated Aux (caught in the nodes/ shadow).
      deepEqual(ev.attempts, [
        { op: "write", path: "nodes/Aux/leak.txt", reverted: false, stopped_by: "bwrap-shadow" },
        { op: "write", path: "nodes/A/leak.txt", reverted: false, stopped_by: "bwrap-shadow" },
      ]);
      equal(exists(`${r.dir}/nodes/Aux/leak.txt`), false);
      equal(exists(`${r.dir}/nodes/A/leak.txt`), false);
      equal(
        Deno.readTextFileSync(`${r.dir}/logs/B.out`).includes("refused"),
        false,
        "no write was refused in silence",
      );
      equal(exists(`${r.dir}/.arrow/shadow/B.1/nodes/Aux/leak.txt`), true);
      equal(exists(`${r.dir}/.arrow/shadow/B.1/lanes/nodes/A/leak.txt`), true);
      equal(r.state.nodes.B!.status, "blocked");
    } finally {
      await Deno.remove(r.dir, { recursive: true });
    }
  },
});

Deno.test("without bubblewrap, the fingerprint guard sees the foreign writes, reverts them and blames the one unconfined program", async () => {
  const r = await runReal("stray_plain", plan(), [], { bwrap: null });
  try {
    deepEqual([...new Set(r.triples.map((t) => t.join(" ")))], ["SCOPE_VIOLATION B blame_routing"]);
    const attempts: [string, boolean][] = [];
    for (const i of r.incidents) {
      const ev = i.evidence as {
        writer: string;
        basis?: string;
        attempts: { path: string; reverted: boolean }[];
      };
      // The guard sees the change, not who made it; B ran alone, unconfined, so no one else could have.
      equal(ev.writer, "B");
      match(
        ev.basis ?? "",
        /^B was the only program running without a sandbox layer \(--unsandboxed\) when nodes\//,
      );
      attempts.push(...ev.attempts.map((a): [string, boolean] => [a.path, a.reverted]));
    }
    deepEqual(attempts.sort(), [["nodes/A/leak.txt", true], ["nodes/Aux/leak.txt", true]]);
    equal(r.state.nodes.B!.status, "blocked", "its result is withheld");
  } finally {
    await Deno.remove(r.dir, { recursive: true });
  }
});

Deno.test({
  name: "a program that rewrites the plan's evaluator is named with the path; the evaluator stays as it was",
  ignore: needs("real_sandbox_test", "the bubblewrap case", NO_BWRAP),
  fn: async () => {
    const planDir = await Deno.makeTempDir({ prefix: "arrow-plan-dir-" });
    const evaluator = `${planDir}/evaluate.sh`;
    Deno.writeTextFileSync(evaluator, "echo 0.5\n");
    const text = JSON.stringify({
      question: "Is an edit of the evaluator seen?",
      protocol: { version: "p1", metric: "dev_r2", direction: "maximize" },
      nodes: [{
        id: "W",
        kind: "fast",
        role: "other",
        worker: {
          type: "command",
          argv: ["sh", "-c", `echo 'echo 0.999' > ${evaluator}; printf '{"node":"W"}' > results.json`],
        },
      }],
      edges: [],
    });
    const loaded = loadPlan(text, "evaluator.yaml");
    if (!loaded.plan) throw new Error(JSON.stringify(loaded.errors));
    const r = await runReal("evaluator_edit", { ...loaded.plan, dir: planDir }, [], { bwrap: BWRAP });
    try {
      deepEqual(r.triples, [["SCOPE_VIOLATION", "W", "blame_routing"]]);
      const ev = r.incidents[0]!.evidence as { writer: string; attempts: unknown[] };
      equal(ev.writer, "W");
      deepEqual(ev.attempts, [{ op: "write", path: evaluator, reverted: false, stopped_by: "bwrap-shadow" }]);
      equal(Deno.readTextFileSync(evaluator), "echo 0.5\n", "the evaluator itself is untouched");
    } finally {
      await Deno.remove(r.dir, { recursive: true });
      await Deno.remove(planDir, { recursive: true });
    }
  },
});
