/**
 * Hostile-suite cases (registered by tests/hostile_test.ts): a worker reaching beyond its scope — Arrow's
 * own checker and black box, sibling scopes, the network, secrets and other runs, arrow's process, daemons
 * that outlive the node, and a foreign write to a file too large to keep for a revert.
 *
 * @module
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { ACCEPT_MAX_LAPS } from "../../src/thresholds.ts";
import { BWRAP, how, processesMatching, rawControl, reap, text } from "../helpers/hostile.ts";
import { CANARY, incidentsOf, type Outcome, survivalProblems } from "./lab.ts";
import { each, log, pooled, SANDBOXED, status, SURVIVES, survives, UNSANDBOXED, verified } from "./checks.ts";
import {
  BIG,
  BLOBCAP,
  BUSY_TMP,
  DAEMON_NAIVE,
  DAEMONS,
  ESCAPE,
  ESCAPES,
  LIVELOCK,
  LIVELOCK_TICKS,
  OVERWROTE,
  SIGSTOP,
  SIGTERM,
} from "./schedule.ts";

/** Ticks at which more than one node was running, from the black box (each as "tick: a, b"). */
function overlaps(dir: string): string[] {
  const running = new Set<string>();
  const out: string[] = [];
  for (const line of text(`${dir}/replay.jsonl`).split("\n").filter(Boolean)) {
    const l = JSON.parse(line) as { tick: number; events: { e: string; node?: string; to?: string }[] };
    for (const e of l.events) {
      if (e.e !== "status" || !e.node) continue;
      if (e.to === "running") running.add(e.node);
      else running.delete(e.node);
    }
    if (running.size > 1) out.push(`${l.tick}: ${[...running].sort().join(", ")}`);
  }
  return out;
}

const bwrapOnly = (name: string, fn: () => void | Promise<void>) => ({
  name: `bwrap: ${name}`,
  ignore: !BWRAP,
  fn,
});

Deno.test("escapes: Arrow's checker and black box, siblings, the network, secrets, other runs", async (t) => {
  const runs = await ESCAPES.runs;
  const run = (m: string) => runs.get(m)!;
  await each(t, runs, SURVIVES, survives);
  await t.step(bwrapOnly("Arrow's own checker cannot be edited (read-only file system)", () => {
    match(log(run("bwrap"), "edit_checker"), /cannot edit .*Read-only file system/);
    const e = ESCAPE.get("bwrap")!;
    equal(text(e.checker), e.before);
  }));
  await t.step("unsandboxed: the user is told programs run without a sandbox layer", () => {
    match(run("unsandboxed").w.stderr, /--unsandboxed: programs run without a sandbox layer/);
  });
  await t.step(bwrapOnly("replay.jsonl is out of reach; the black box verifies", async () => {
    const o = run("bwrap");
    match(log(o, "forge"), /cannot read replay\.jsonl: NotFound/);
    ok(!text(`${o.dir}/replay.jsonl`).includes("forged by the worker"));
    const r = await pooled(() => ESCAPES.lab.cli(SANDBOXED, ["replay", o.dir, "--check"]));
    equal(r.code, 0, how(r));
  }));
  await t.step("unsandboxed: a forged verdict line is named by replay --check and by resume", async () => {
    const o = run("unsandboxed");
    ok(/forged line \d+/.test(log(o, "forge")), log(o, "forge"));
    // Where the forged line landed: arrow may append lines between the worker's read and its append.
    const forged = 1 +
      text(`${o.dir}/replay.jsonl`).split("\n").findIndex((l) => l.includes("forged by the worker"));
    ok(forged > 0, "the forged line is in replay.jsonl");
    equal(o.state?.verdict, "NO VERDICT", "the run's own verdict is not the forged one");
    const r = await pooled(() => ESCAPES.lab.cli(UNSANDBOXED, ["replay", o.dir, "--check"]));
    equal(r.code, 1, how(r));
    match(r.stderr, new RegExp(`line (${forged}|${forged + 1}) `));
    const s = await pooled(() => ESCAPES.lab.resume(UNSANDBOXED, o.dir));
    equal(s.w.code, 1, how(s.w));
    match(s.w.stderr, new RegExp(`replay\\.jsonl line (${forged}|${forged + 1}) `));
  });
  await t.step(bwrapOnly("writes into a running and a verified sibling land in a shadow, blamed", () => {
    const o = run("bwrap");
    const [v] = incidentsOf(o, "intruder", "SCOPE_VIOLATION");
    const attempts = (v?.evidence.attempts ?? []) as { path: string; stopped_by: string }[];
    deepEqual(attempts.map((a) => [a.path.split("/")[1], a.stopped_by]).sort(), [
      ["early", "bwrap-shadow"],
      ["victim", "bwrap-shadow"],
      ["victim", "bwrap-shadow"],
    ]);
    equal(status(o, "intruder")?.status, "blocked");
    for (const n of ["early", "victim"]) verified(o, n);
    ok(![...Deno.readDirSync(`${o.dir}/nodes/victim`)].some((e) => e.name.includes("intruded")));
  }));
  await t.step(
    "unsandboxed: a write into a verified sibling is reverted and blamed on the one program running",
    () => {
      // No layer saw who wrote; the intruder ran alone (the next step checks), so no one else could have.
      const o = run("unsandboxed");
      const [v] = incidentsOf(o, "intruder", "SCOPE_VIOLATION");
      equal(v?.evidence.writer, "intruder", JSON.stringify(o.incidents));
      match(
        String(v!.evidence.basis),
        /^intruder was the only program running without a sandbox layer \(--unsandboxed\) when nodes\/early/,
      );
      const attempts = v!.evidence.attempts as { path: string; reverted: boolean }[];
      deepEqual(attempts.filter((a) => a.path.startsWith("nodes/early/")).map((a) => a.reverted), [true]);
      deepEqual(incidentsOf(o, "early", "SCOPE_VIOLATION"), [], "the victim is not where the blame lands");
      equal(status(o, "intruder")?.status, "blocked");
      deepEqual([...Deno.readDirSync(`${o.dir}/nodes/early`)].map((e) => e.name), ["results.json"]);
    },
  );
  await t.step(
    "unsandboxed: no sibling runs beside a program, so a write into one is refused or reported",
    () => {
      const o = run("unsandboxed");
      deepEqual(overlaps(o.dir), [], "two nodes ran at the same tick while a program ran unconfined");
      const wrote = /wrote into victim: "intruded\.txt"/.test(log(o, "intruder"));
      if (!wrote) match(log(o, "intruder"), /cannot write into victim/);
      const named = o.incidents.some((i) => JSON.stringify(i.evidence).includes("victim/intruded.txt"));
      const kept = [...Deno.readDirSync(`${o.dir}/nodes/victim`)].some((e) => e.name === "intruded.txt");
      ok(named || !kept, "victim/intruded.txt stays in the sibling's scope and no incident names it");
    },
  );
  await t.step(bwrapOnly("no network: a connection to a local port is refused", () => {
    match(log(run("bwrap"), "network"), /network refused/);
    deepEqual(ESCAPE.get("bwrap")!.reached, []);
  }));
  await t.step(bwrapOnly("~/.ssh, other runs and the run's own state.json are hidden", () => {
    const loot = text(`${run("bwrap").dir}/nodes/loot/loot.txt`);
    ok(loot.includes("DENIED") && !loot.includes("READ "), loot);
    for (const c of Object.values(CANARY)) ok(!loot.includes(c), loot);
  }));
  await each(t, runs, "escape bytes in file names never reach the terminal raw", async (o, m) => {
    const outputs: [string, string][] = [["arrow run", o.w.stdout + o.w.stderr]];
    for (const cmd of [["replay", o.dir], ["report", o.dir]]) {
      const r = await pooled(() => ESCAPES.lab.cli(m, cmd));
      outputs.push([`arrow ${cmd[0]}`, r.stdout + r.stderr]);
    }
    deepEqual(outputs.map(([cmd, out]) => [cmd, rawControl(out)]), outputs.map(([cmd]) => [cmd, null]));
    ok(outputs.every(([, out]) => out.includes("\\x1b")), "every command shows the hostile names, escaped");
  });
});

Deno.test("double-forked daemons: the node ends when its worker does, no daemon outlives it", async (t) => {
  const [naive, others] = [await DAEMON_NAIVE.runs, await DAEMONS.runs];
  const lab = DAEMONS.lab.outside;
  const alive = (m: string, kind: string) =>
    processesMatching(`${lab}/beat-${m}-${kind}`).length > 0 ||
    processesMatching(`${DAEMON_NAIVE.lab.outside}/beat-${m}-${kind}`).length > 0;
  const left = [
    ...processesMatching(`${lab}/beat-`),
    ...processesMatching(`${DAEMON_NAIVE.lab.outside}/beat-`),
  ];
  await each(t, naive, `daemon keeping the worker's pipes: ${SURVIVES}`, survives);
  await each(
    t,
    naive,
    "daemon keeping the worker's pipes: the node is verified when its worker exits",
    (o) => {
      verified(o, "daemon_naive");
    },
  );
  await each(t, others, `daemons with pipes closed: ${SURVIVES}`, survives);
  for (const kind of ["naive", "detached", "scrubbed"]) {
    await each(
      t,
      kind === "naive" ? naive : others,
      `${kind} daemon: dead once arrow has exited`,
      (_o, m) => {
        ok(!alive(m.name, kind), `the ${kind} daemon of the ${m.name} run is still alive`);
      },
    );
  }
  await each(t, others, "daemons with pipes closed: their nodes are verified", (o) => {
    for (const k of ["detached", "scrubbed"]) verified(o, `daemon_${k}`);
  });
  reap(left);
});

Deno.test("a worker signals arrow itself (SIGSTOP, SIGTERM), its pid found in /proc", async (t) => {
  const [stop, term] = [await SIGSTOP.runs, await SIGTERM.runs];
  for (const [sig, runs] of [["SIGSTOP", stop], ["SIGTERM", term]] as const) {
    await t.step(bwrapOnly(`${sig}: no arrow process is even visible from the sandbox`, () => {
      const o = runs.get("bwrap")!;
      deepEqual(survivalProblems(o), [], how(o.w));
      match(log(o, "signaller"), /arrow processes visible in \/proc: 0\n(.*\n)?arrow not found in \/proc/);
    }));
  }
  await t.step("unsandboxed: SIGSTOP, then SIGCONT: the run still reaches its verdict", () => {
    const o = stop.get("unsandboxed")!;
    match(log(o, "signaller"), /sent SIGSTOP to arrow/);
    deepEqual(survivalProblems(o), [], how(o.w));
  });
  await t.step(
    "unsandboxed: SIGTERM interrupts cleanly (exit 130, how to resume); resume ends it",
    async () => {
      const o = term.get("unsandboxed")!;
      equal(o.w.code, 130, how(o.w));
      match(o.w.stderr, /interrupted at tick \d+; continue with: arrow resume /);
      const r = await pooled(() => SIGTERM.lab.resume(UNSANDBOXED, o.dir));
      deepEqual(survivalProblems(r), [], how(r.w));
      verified(r, "signaller");
    },
  );
});

Deno.test("a file over the blob cap overwritten by a foreign writer: reverted: false, honestly", async (t) => {
  const runs = await BLOBCAP.runs;
  const big = "nodes/owner/big.bin";
  await each(t, runs, SURVIVES, survives);
  await t.step(
    bwrapOnly("the test overwrote it from outside the run while every worker was confined", () => {
      ok(OVERWROTE.has("bwrap"), "owner was never seen verified while writer ran");
    }),
  );
  await each(t, runs, "no incident claims big.bin was reverted", (o) => {
    const attempts = o.incidents.flatMap((i) =>
      (i.evidence.attempts ?? []) as { path: string; reverted: boolean }[]
    );
    deepEqual(attempts.filter((a) => a.path === big && a.reverted), []);
  });
  await t.step("unsandboxed: SCOPE_VIOLATION with reverted: false, the path named irreparable", () => {
    // The writer ran alone, unconfined: no layer saw it write, but no one else could have.
    const o = runs.get("unsandboxed")!;
    const [v] = incidentsOf(o, "writer", "SCOPE_VIOLATION");
    equal(v?.evidence.writer, "writer", JSON.stringify(o.incidents));
    deepEqual(v?.evidence.attempts, [{ op: "write", path: big, reverted: false, stopped_by: null }]);
    deepEqual(v?.evidence.irreparable, [big]);
    match(String(v?.evidence.basis), /^writer was the only program running without a sandbox layer/);
    equal(status(o, "writer")?.status, "blocked");
  });
  await each(
    t,
    runs,
    "the owner's result no longer stands: reopened, re-run, its file whole again",
    (o) => {
      deepEqual(
        incidentsOf(o, "owner", "STALE_CASCADE")[0]?.evidence.changed,
        [big],
        JSON.stringify(o.incidents),
      );
      verified(o, "owner");
      ok(
        Deno.readFileSync(`${o.dir}/${big}`).every((b, i) => b === BIG[i]),
        "big.bin holds its own bytes again",
      );
    },
  );
});

Deno.test("a writer that overwrites the file on every re-run does not keep the run from its verdict", async (t) => {
  const runs = await LIVELOCK.runs;
  await each(t, runs, SURVIVES, survives);
  await each(t, runs, "the run ends on its own, not at the --max-ticks fuse", (o: Outcome) => {
    const cycles = incidentsOf(o, "owner", "STALE_CASCADE").length;
    ok(
      o.state!.tick < LIVELOCK_TICKS,
      `${cycles} reopen cycles, still going at the ${LIVELOCK_TICKS}-tick fuse`,
    );
    ok(o.state!.verdict !== null, "a verdict, not the fuse");
    ok(
      cycles <= ACCEPT_MAX_LAPS,
      `${cycles} reopen cycles: at most ${ACCEPT_MAX_LAPS} before the writer is blocked`,
    );
  });
});

Deno.test("a busy /tmp (entries coming and going) does not keep sandboxed workers from starting", async (t) => {
  const runs = await BUSY_TMP.runs;
  await each(t, runs, SURVIVES, survives);
  await each(
    t,
    runs,
    "every honest worker is verified on its first attempt, none counted as a crash",
    (o) => {
      const crashes = o.incidents.map((i) => (i.evidence.crash as { stderr_tail?: string[] })?.stderr_tail);
      deepEqual(crashes.filter(Boolean), []);
      for (let i = 0; i < 12; i++) verified(o, `honest_${i}`);
    },
  );
});
