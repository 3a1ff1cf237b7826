/**
 * Background processes a command worker leaves behind, run through the `arrow` CLI with `--unsandboxed`
 * (bubblewrap hidden from PATH): a daemon that keeps the worker's pipes never holds up its node's end
 * (KNOWN_FAILURES F2), and a daemon that leaves the worker's session and drops its environment — its
 * attempt token with it — is adopted and killed all the same (F3). Each daemon beats a file outside the
 * run, to prove it ran, and is found afterwards by that path in its command line.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { stringify } from "yaml";
import { arrow } from "./helpers/cli.ts";
import { MODES } from "./helpers/hostile.ts";
import { processesMentioning } from "./helpers/procs.ts";
import { libc } from "../src/runtime/proc/libc.ts";

const UNSANDBOXED = MODES.find((m) => m.name === "unsandboxed")!;
const NO_FFI = typeof libc() === "string" ? String(libc()) : null;
if (NO_FFI) console.log(`daemon_orphans_test: the scrubbed-daemon case is ignored — ${NO_FFI}`);

/** A loop that touches `beat` every 0.1 s; `$0` keeps the path in its command line. */
const LOOP = `'while :; do : > "$0"; sleep 0.1; done'`;

/** How each worker leaves its daemon (then writes its result and exits at once). */
const KINDS: Record<string, (beat: string) => string> = {
  // F2: keeps the worker's stdout/stderr and environment, in a session of its own.
  naive: (beat) => `setsid sh -c ${LOOP} ${beat} &`,
  // Stays in the worker's process group, holding its pipes.
  grouped: (beat) => `sh -c ${LOOP} ${beat} &`,
  // F3: no pipes, no environment, a session of its own.
  scrubbed: (beat) => `setsid env -i /bin/sh -c ${LOOP} ${beat} </dev/null >/dev/null 2>&1 &`,
  // Both: drops its environment but keeps the pipes.
  scrubbed_piped: (beat) => `setsid env -i /bin/sh -c ${LOOP} ${beat} &`,
};

function plan(dir: string, kinds: string[]): string {
  const doc = {
    question: "Does a daemon outlive its node?",
    protocol: { version: "p1", metric: "dev_r2", direction: "maximize" },
    nodes: kinds.map((k) => ({
      id: k,
      kind: "fast",
      role: "other",
      budget: { wall: "30s" },
      worker: {
        type: "command",
        argv: [
          "/bin/sh",
          "-c",
          `${KINDS[k]!(`${dir}/beat-${k}`)} while [ ! -e ${dir}/beat-${k} ]; do sleep 0.05; done; ` +
          `printf '{"node": "${k}"}' > results.json`,
        ],
      },
    })),
    edges: [],
  };
  // The plan in a directory of its own: an unconfined worker's write beside the plan is a SCOPE_VIOLATION.
  Deno.mkdirSync(`${dir}/plan`);
  Deno.writeTextFileSync(`${dir}/plan/plan.yaml`, stringify(doc));
  return `${dir}/plan/plan.yaml`;
}

async function run(kinds: string[]) {
  const dir = Deno.makeTempDirSync({ prefix: "arrow-daemons-" });
  const r = await arrow(
    ["run", plan(dir, kinds), "--real", "--json", "--runs-dir", `${dir}/runs`, ...UNSANDBOXED.flags],
    { env: { PATH: UNSANDBOXED.path, HOME: Deno.env.get("HOME") ?? dir } },
  );
  const left = processesMentioning(`${dir}/beat-`);
  for (const pid of left) Deno.kill(pid, "SIGKILL");
  const runDir = `${dir}/runs/${[...Deno.readDirSync(`${dir}/runs`)][0]!.name}`;
  const state = JSON.parse(Deno.readTextFileSync(`${runDir}/state.json`));
  const out = {
    r,
    left,
    statuses: Object.fromEntries(kinds.map((k) => [k, state.nodes[k].status])),
    incidents: Deno.readTextFileSync(`${runDir}/incidents.jsonl`).split("\n").filter(Boolean)
      .map((l) => JSON.parse(l).type as string),
    beat: Object.fromEntries(kinds.map((k) => [k, exists(`${dir}/beat-${k}`)])),
  };
  Deno.removeSync(dir, { recursive: true });
  return out;
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

Deno.test("arrow run --unsandboxed: a daemon holding the worker's pipes neither hangs arrow nor outlives it", async () => {
  const o = await run(["naive", "grouped"]);
  equal(o.r.code, 0, o.r.stderr);
  deepEqual(o.beat, { naive: true, grouped: true }, "every daemon ran");
  deepEqual(o.statuses, { naive: "verified", grouped: "verified" }, "each node ended with its worker");
  deepEqual(o.incidents, [], "no budget ran out waiting for the pipes");
  deepEqual(o.left, [], "no daemon is alive after arrow");
});

Deno.test({
  name: "arrow run --unsandboxed: a daemon that drops its environment and session is killed all the same",
  ignore: NO_FFI !== null,
  fn: async () => {
    const o = await run(["scrubbed", "scrubbed_piped"]);
    equal(o.r.code, 0, o.r.stderr);
    deepEqual(o.beat, { scrubbed: true, scrubbed_piped: true }, "every daemon ran");
    deepEqual(o.statuses, { scrubbed: "verified", scrubbed_piped: "verified" });
    deepEqual(o.incidents, []);
    deepEqual(o.left, [], "no daemon is alive after arrow");
    ok(!o.r.stderr.includes("cannot adopt"), o.r.stderr);
  },
});
