/**
 * A command worker that rewrites the plan's own evaluator (beside plan.yaml and runs/, the common layout) so
 * that it prints 0.999, then claims 0.999 under `@claim`: never verified, and the write is on the record —
 * under bubblewrap it lands in the plan directory's copy and is blamed on the writer; with `--unsandboxed`
 * (bwrap hidden) the evaluator is put back before the claim is judged and the edit is reported, blamed on
 * the one unconfined program that was running (the evidence says on what basis), while the original
 * evaluator refutes the claim. An acceptance script edited the same way is held to the run's start too, and
 * a new file planted beside the evaluator (where Python would import it from) is seen either way: in the
 * copy, or — unconfined — in the plan directory's listing, compared at every look.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { stringify } from "yaml";
import { arrow } from "./helpers/cli.ts";
import { MODES, PYTHON } from "./helpers/hostile.ts";
import { needs, NO_BWRAP } from "./helpers/needs.ts";
import { manifest } from "./live_corpus/cases.ts";

/** The honest evaluator: the artifact's true score is 0.79 whatever it claims. */
const EVALUATOR = "import sys\nopen(sys.argv[1]).read()\nprint(0.79)\n";

/** The python of a corpus manifest command (its bash fence and heredoc taken off), as one sh script. */
const writeManifest = (score: number, artifact?: string) =>
  manifest(score, "manifest written", artifact).filter((l) => !l.startsWith("```")).join("\n");

type Attack = "evaluator" | "acceptance" | "new file";

function plan(dir: string, attack: Attack): unknown {
  const evil = attack === "evaluator"
    ? `echo 'print(0.999)' > ${dir}/evaluate.py`
    : attack === "new file"
    ? `echo 'import builtins' > ${dir}/sitecustomize.py`
    : `printf '#!/bin/sh\\nexit 0\\n' > ${dir}/accept.sh`;
  return {
    question: "Is an edit of the plan's own evaluator caught?",
    protocol: {
      version: "p1-dev-r2",
      metric: "dev_r2",
      direction: "maximize",
      evaluate: [PYTHON, "evaluate.py", "{artifact}", "{data}"],
    },
    nodes: [
      { id: "N0", kind: "fast", role: "protocol" },
      { id: "N1", kind: "fast", role: "data", worker: { type: "builtin", name: "make_data" } },
      { id: "N2", kind: "fast", role: "harness" },
      {
        id: "N3",
        kind: "fast",
        role: "baseline",
        worker: { type: "command", argv: ["sh", "-c", writeManifest(0.57)] },
      },
      {
        id: "N4",
        kind: "fast",
        role: "train",
        acceptance: attack === "acceptance" ? ["sh", `${dir}/accept.sh`] : ["@claim"],
        worker: {
          type: "command",
          argv: [
            "sh",
            "-c",
            `${evil} 2>/dev/null; echo '{}' > model.json; ${writeManifest(0.999, "model.json")}`,
          ],
        },
      },
    ],
    edges: [
      { from: "N0", to: "N1", kind: "artifact" },
      { from: "N1", to: "N2", kind: "artifact" },
      { from: "N2", to: "N3", kind: "artifact" },
      { from: "N2", to: "N4", kind: "artifact" },
    ],
  };
}

interface Incident {
  type: string;
  node: string;
  ladder: string;
  evidence: Record<string, unknown>;
}

async function attack(mode: (typeof MODES)[number], what: Attack) {
  const dir = await Deno.makeTempDir({ prefix: `arrow-plan-files-${what.replace(" ", "-")}-` });
  try {
    Deno.writeTextFileSync(`${dir}/evaluate.py`, EVALUATOR);
    // An acceptance script that refuses every claim: a worker that makes it pass has edited it.
    Deno.writeTextFileSync(`${dir}/accept.sh`, "#!/bin/sh\necho refused; exit 1\n");
    Deno.writeTextFileSync(`${dir}/plan.yaml`, stringify(plan(dir, what)));
    const r = await arrow(
      ["run", `${dir}/plan.yaml`, "--real", "--json", "--runs-dir", `${dir}/runs`, ...mode.flags],
      { env: { PATH: mode.path, HOME: Deno.env.get("HOME") ?? dir } },
    );
    equal(r.code, 0, r.stderr.slice(-1500));
    const out = JSON.parse(r.stdout);
    const incidents: Incident[] = Deno.readTextFileSync(`${out.run_dir}/incidents.jsonl`).split("\n")
      .filter(Boolean).map((l) => JSON.parse(l));
    const state = JSON.parse(Deno.readTextFileSync(`${out.run_dir}/state.json`));
    return {
      incidents,
      verdict: out.verdict as string,
      n4: state.nodes.N4.status as string,
      evaluator: Deno.readTextFileSync(`${dir}/evaluate.py`),
      accept: Deno.readTextFileSync(`${dir}/accept.sh`),
      dir,
    };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const attempts = (i: Incident) =>
  i.evidence.attempts as { path: string; op: string; stopped_by: string | null; reverted: boolean }[];

for (const mode of MODES) {
  for (const what of ["evaluator", "acceptance", "new file"] as const) {
    Deno.test({
      name: `[${mode.name}] a command worker that ${
        what === "new file" ? "plants a file beside the evaluator" : `edits the plan's ${what}`
      } is on the record and never verified`,
      ignore: mode.name === "bwrap" && needs("plan_files_test", "the bubblewrap mode", NO_BWRAP),
      fn: async () => {
        const got = await attack(mode, what);
        const file =
          { evaluator: "evaluate.py", acceptance: "accept.sh", "new file": "sitecustomize.py" }[what];
        const sv = got.incidents.filter((i) => i.type === "SCOPE_VIOLATION");
        ok(sv.length > 0, `no SCOPE_VIOLATION: ${JSON.stringify(got.incidents)}`);
        for (const i of sv) {
          const a = attempts(i).find((x) => x.path === `${got.dir}/${file}`);
          ok(a && a.op === "write", `the violation names no write of ${file}: ${JSON.stringify(i.evidence)}`);
          if (mode.name === "bwrap") {
            deepEqual([i.node, i.evidence.writer, a.stopped_by], ["N4", "N4", "bwrap-shadow"]);
          } else {
            // No layer saw it; N4 was the only unconfined program running. A held file is put back; a new
            // one was never kept, so it is left where it is (named, never removed).
            deepEqual([i.node, i.evidence.writer, a.stopped_by, a.reverted], [
              "N4",
              "N4",
              null,
              what !== "new file",
            ]);
            ok(
              String(i.evidence.basis).startsWith("N4 was the only program running"),
              String(i.evidence.basis),
            );
          }
        }
        ok(got.n4 !== "verified", `N4 was verified by an edited ${what}`);
        equal(got.verdict, "RESULT WITHHELD");
        equal(got.evaluator, EVALUATOR, "the evaluator is as the plan's author wrote it");
        equal(got.accept, "#!/bin/sh\necho refused; exit 1\n");
      },
    });
  }
}
