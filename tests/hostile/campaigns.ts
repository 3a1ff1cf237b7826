/**
 * The attack campaigns: each builds one plan in a lab whose nodes each carry one attack (and the honest
 * nodes an attack needs around it). The tests in tests/hostile_test.ts run them in both sandbox modes and
 * read each attack's outcome off its node; the benchmark runs the floods at full size.
 *
 * @module
 */
import type { Lab } from "./lab.ts";
import { PYTHON, ROOT } from "../helpers/hostile.ts";
import { deno, EVALUATE, honestHead, type NodeSpec, planDoc, py, sh } from "./plans.ts";

/** Scope shapes: special files, endless devices, deep and long paths, links out, a venv, hostile names. */
export function shapeNodes(lab: Lab): NodeSpec[] {
  Deno.mkdirSync(`${lab.outside}/ckpt`, { recursive: true });
  Deno.writeTextFileSync(`${lab.outside}/ckpt/step_000005.json`, "{}");
  Deno.writeTextFileSync(`${lab.outside}/great_metrics.jsonl`, '{"step": 0, "dev_r2": 0.999}\n');
  Deno.writeTextFileSync(
    `${lab.outside}/forged_results_links_out.json`,
    JSON.stringify({ node: "links_out", score: 0.999 }),
  );
  // Refused on each of three laps: a short hold each.
  const quick = { HOLD: "0.3" };
  return [
    { id: "fifo", kind: "long", argv: sh("fifo") },
    { id: "fifo_results", argv: sh("fifo_results"), env: quick },
    { id: "socket", argv: py("socket") },
    { id: "socket_results", argv: py("socket_results"), env: quick },
    { id: "longpath", argv: py("longpath") },
    { id: "venv", argv: sh("venv", PYTHON) },
    { id: "devzero", kind: "long", argv: sh("devzero") },
    { id: "links_out", kind: "long", argv: py("links_out", lab.outside), env: quick },
    { id: "escape_names", argv: py("escape_names") },
  ];
}

/** Hostile manifests judged by the engine's own reader (@manifest). */
export function manifestNodes(hugeMb = 100): NodeSpec[] {
  return [
    { id: "deep", argv: py("deep_manifest", "200000") },
    { id: "huge", argv: py("huge_manifest", String(hugeMb)) },
    { id: "string_score", argv: py("raw_manifest", '{"node": NODE, "score": "0.99"}') },
    { id: "inf_score", argv: py("raw_manifest", '{"node": NODE, "score": 1e999}') },
  ];
}

/** Floods through the files Arrow tails and scans. */
export function floodNodes(o: { floodMb: number; lineMb: number; ckpts: number; files: number }): NodeSpec[] {
  return [
    { id: "flood", kind: "long", argv: py("flood", String(o.floodMb)) },
    // It ends as soon as the line is written: what Arrow reads of its file after that is all it gets.
    { id: "giant_line", kind: "long", argv: py("giant_line", String(o.lineMb)), env: { HOLD: "0" } },
    { id: "ckpt_flood", kind: "long", argv: py("ckpt_flood", String(o.ckpts)) },
    { id: "many_files", argv: py("many_files", String(o.files)) },
  ];
}

/** Suite-sized floods (the benchmark runs them at full size). */
export const SMALL_FLOODS = { floodMb: 20, lineMb: 10, ckpts: 1000, files: 5000 } as const;

/** Self-made evidence under @claim: a mock-kind artifact and a log that prints the claimed score. */
export function forgeryNodes(): NodeSpec[] {
  return [
    { id: "mock_artifact", role: "train", acceptance: ["@claim"], argv: py("self_written", "mock") },
    { id: "log_artifact", role: "train", acceptance: ["@claim"], argv: py("self_written", "log") },
  ];
}

/**
 * Everything a worker can do to its own scope and its claim, in one plan: the regression task's honest
 * head with forged evidence beside its baseline, and shapes, manifests and floods as independent nodes
 * (each attack's outcome is read off its own node).
 */
export function scope(lab: Lab, extra: NodeSpec[] = []): string {
  const head = honestHead();
  const forged = forgeryNodes();
  return lab.plan(
    "scope",
    planDoc(
      "Can a worker's scope or claim crash, hang, blow up or fool arrow?",
      [
        ...head.nodes,
        ...forged,
        ...shapeNodes(lab),
        ...manifestNodes(),
        ...floodNodes(SMALL_FLOODS),
        ...extra,
      ],
      { edges: [...head.edges, ...forged.map((a) => ({ from: "harness", to: a.id }))], evaluate: EVALUATE },
    ),
  );
}

/**
 * Hostile results.json files under `@claim` with a declared evaluator, whose argv names the manifest's
 * artifact: a FIFO, a link to /dev/zero, 100 MB.
 */
export function claimReads(lab: Lab): string {
  return lab.plan(
    "claim_reads",
    planDoc("Can the manifest under @claim hang or blow up arrow?", [
      { id: "fifo_claim", argv: sh("fifo_results"), acceptance: ["@claim"] },
      { id: "zero_claim", argv: py("zero_manifest"), acceptance: ["@claim"] },
      { id: "huge_claim", argv: py("huge_manifest", "100"), acceptance: ["@claim"] },
    ], { evaluate: EVALUATE }),
  );
}

/**
 * A copy of Arrow's own program files in the lab, so that an attack on them (src/workers/check_claim.ts) can
 * never touch the shared working tree even if a sandbox fails. Returns the copy's CLI entry point.
 */
export function projectCopy(lab: Lab, tag: string): string {
  const dest = `${lab.base}/arrow-${tag}`;
  const copy = (from: string, to: string) => {
    Deno.mkdirSync(to, { recursive: true });
    for (const e of Deno.readDirSync(from)) {
      if (e.name === "__pycache__" || e.name === "tmp") continue;
      if (e.isDirectory) copy(`${from}/${e.name}`, `${to}/${e.name}`);
      else if (e.isFile) Deno.copyFileSync(`${from}/${e.name}`, `${to}/${e.name}`);
    }
  };
  copy(`${ROOT}src`, `${dest}/src`);
  copy(`${ROOT}scripts`, `${dest}/scripts`);
  for (const f of ["deno.json", "deno.lock"]) Deno.copyFileSync(`${ROOT}${f}`, `${dest}/${f}`);
  Deno.symlinkSync(`${ROOT}node_modules`, `${dest}/node_modules`);
  return `${dest}/src/cli/main.ts`;
}

/**
 * Escapes from the scope: edit Arrow's checker, forge a verdict into replay.jsonl, write into a running and a
 * verified sibling (with escape bytes in the names), reach the network, read secrets, other runs and the
 * run's own state, and leave a well-behaved daemon (fds closed, environment kept).
 */
export function escapes(lab: Lab, tag: string, checker: string, port: number): string {
  return lab.plan(
    `escapes_${tag}`,
    planDoc("Can a worker reach beyond its scope?", [
      { id: "edit_checker", argv: deno("edit_checker", checker) },
      { id: "forge", argv: deno("forge_replay", "chained") },
      { id: "early", argv: ["/bin/sh", "-c", `printf '{"node": "early"}' > results.json`] },
      { id: "victim", argv: py("victim"), env: { HOLD: "3", HOLD_MAX: "30" } },
      { id: "intruder", argv: deno("intrude", "victim", "early") },
      { id: "network", argv: py("network", String(port)) },
      { id: "loot", argv: py("loot", `${lab.home}/.ssh/id_rsa`, "@other-runs", "{run}/state.json") },
    ]),
  );
}

/**
 * Double-forked daemons: `naive` keeps the worker's pipes and environment; `detached` closes the pipes;
 * `scrubbed` closes them and drops its environment. Each keeps its heartbeat path,
 * `outside/beat-<tag>-<kind>`, in its command line, to be found by.
 */
export function daemons(lab: Lab, tag: string, kinds: ("naive" | "detached" | "scrubbed")[]): string {
  const how = { naive: [], detached: ["detach"], scrubbed: ["scrub"] };
  return lab.plan(
    `daemons_${tag}_${kinds.join("_")}`,
    planDoc(
      "Does a daemon outlive its node?",
      kinds.map((k) => ({
        id: `daemon_${k}`,
        argv: py("daemon", `${lab.outside}/beat-${tag}-${k}`, ...how[k]),
        // A fuse only (a node held by its daemon would hang the test): far above a loaded machine's start-up.
        budget: { wall: "60s" },
      })),
    ),
  );
}

/** A worker that signals arrow itself, once (a marker outside the scope remembers it did). */
export function signals(lab: Lab, tag: string, sig: "SIGSTOP" | "SIGTERM"): string {
  return lab.plan(
    `signal_${tag}_${sig}`,
    planDoc("Can a worker stop or kill arrow?", [
      { id: "signaller", argv: py("signal", sig, `${lab.outside}/signalled-${tag}-${sig}`) },
      { id: "bystander", argv: py("victim"), env: { HOLD: "3", HOLD_MAX: "3" } },
    ]),
  );
}

/**
 * A file larger than the blob cap in a verified scope, overwritten in place by a foreign writer: the
 * downstream worker itself, once or on every attempt (possible only unconfined), or a writer outside the
 * run (the test) while a sleeper downstream keeps the run going.
 */
export function blobCap(lab: Lab, writer: "once" | "always" | "outside"): string {
  const target = "{nodes}/owner/big.bin";
  const nodes: NodeSpec[] = [
    { id: "owner", argv: py("big_file", "3"), env: { HOLD: "0" } },
    writer === "once"
      ? { id: "writer", argv: py("overwrite_once", target, `${lab.outside}/overwrote`) }
      : writer === "always"
      ? { id: "writer", argv: py("overwrite", target) }
      : { id: "writer", argv: py("victim"), env: { HOLD: "8", HOLD_MAX: "8" } },
  ];
  return lab.plan(
    `blob_${writer}`,
    planDoc("Is a revert that cannot happen reported as such?", nodes, {
      edges: [{ from: "owner", to: "writer" }],
    }),
  );
}

/** A node holding a file over the blob cap, with escape bytes in its name, while its worker keeps running. */
export const HOLDER: NodeSpec = { id: "holder", argv: py("big_file", "2", "@escape"), env: { HOLD: "30" } };

/** Twelve honest sandboxed workers that start while entries of /tmp come and go (another user's files). */
export function busyTmp(lab: Lab): string {
  const nodes = Array.from({ length: 12 }, (_, i) => ({
    id: `honest_${i}`,
    argv: ["/bin/sh", "-c", `printf '{"node": "honest_${i}"}' > results.json`],
  }));
  return lab.plan("busy_tmp", planDoc("Does a busy /tmp keep sandboxed workers from starting?", nodes));
}
