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
import { equal, ok } from "node:assert/strict";
import { arrow } from "./helpers/cli.ts";
import { MODES } from "./helpers/hostile.ts";
import { needs, NO_BWRAP } from "./helpers/needs.ts";
import { type Script, startScriptedServer } from "./llm/scripted_server.ts";
import { listFiles } from "../src/runtime/scope/scope_files.ts";

const CSV = new URL("./fixtures/tree/small.csv", import.meta.url).pathname;

/** A module that tries three writes outside its lane as it loads, then is an identity step. */
function hostile(paths: string[]): Script {
  const module = [
    'import type { FeatureTransform } from "tabular";',
    `for (const p of ${JSON.stringify(paths)}) {`,
    "  try {",
    '    Deno.writeTextFileSync(p, "was here");',
    "  } catch {",
    "    // refused",
    "  }",
    "}",
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
        const r = await arrow([
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
            ARROW_LLM_BASE_URL: server.url,
            ARROW_LLM_API_KEY: "test-key",
            ARROW_LLM_MODEL: "scripted",
          },
        });
        equal(r.code, 0, r.stderr.slice(-2000));
        const out = JSON.parse(r.stdout);
        const incidents = Deno.readTextFileSync(`${out.run_dir}/incidents.jsonl`).split("\n").filter(Boolean)
          .map((l) => JSON.parse(l) as { type: string; node: string; evidence: { attempts: Attempt[] } });
        const sv = incidents.filter((i) => i.type === "SCOPE_VIOLATION");
        equal(sv.length, 1, JSON.stringify(incidents));
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

function exists(p: string): boolean {
  try {
    Deno.statSync(p);
    return true;
  } catch {
    return false;
  }
}
