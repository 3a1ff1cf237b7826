/**
 * Hostile workers (issue 11): every attack a worker can make on Arrow from inside its own scope — Python, sh
 * and Deno command workers — run through the `arrow` CLI under bubblewrap and with `--unsandboxed` (bwrap
 * hidden from PATH). Each attack is blocked or reported with the right incident; `arrow` never exits 2,
 * never hangs, never goes past 300 MB of resident memory (VmHWM), and the run — and a resume after kill -9
 * mid-attack — reaches a verdict. Attacks that still succeed are in tests/hostile/KNOWN_FAILURES.md, with
 * their reproduction; their tests fail until the engine is fixed. All campaigns start when this module
 * loads, four arrow processes at a time (tests/hostile/checks.ts); each test awaits its own.
 *
 * Smaller attacks of the issue are tested elsewhere: the run lock race (src/runtime/lock_test.ts), NUL and
 * control characters in scopes and ids (src/graph/validate_test.ts), a 100,000-node chain
 * (src/graph/normalize_test.ts), report heading forgery (src/record/md_escape_test.ts), a malformed Host
 * header and --host 0.0.0.0 (tests/server_abuse_test.ts), at_tick 1e308 and parser fuzzing
 * (src/graph/validate_test.ts, tests/fuzz_test.ts). The full-size floods are `deno task bench:hostile`.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { BWRAP, how, NO_BWRAP, text } from "./helpers/hostile.ts";
import { incidentsOf, scopeRecord } from "./hostile/lab.ts";
import { each, log, refused, size, status, SURVIVES, survives, verified } from "./hostile/checks.ts";
import { CLAIMS, SCOPE } from "./hostile/schedule.ts";
import "./hostile/sandbox_cases.ts";
import "./hostile/resume_cases.ts";

if (!BWRAP) console.log(`hostile_test: bubblewrap cases ignored — ${NO_BWRAP}`);

// ---- scope shapes and manifests ----------------------------------------------------------------------

Deno.test("scope shapes: FIFOs, sockets, deep paths, links out, /dev/zero, a venv", async (t) => {
  const runs = await SCOPE.runs;
  await each(t, runs, SURVIVES, survives);
  await each(t, runs, "FIFOs (stray, metrics.jsonl, a checkpoint) are recorded, never opened", (o) => {
    verified(o, "fifo");
    const rec = scopeRecord(o.dir).fifo!;
    deepEqual(
      [rec.fifo, rec["metrics.jsonl"], rec["ckpt/step_000001.json"]],
      Array(3).fill("special:fifo"),
    );
    equal(status(o, "fifo")!.ckpts.length, 0, "a FIFO is no checkpoint");
  });
  await each(t, runs, "results.json as a FIFO: FALSE_COMPLETION naming it", (o) => {
    refused(o, "fifo_results", /^results\.json is not a regular file \(fifo\)$/);
  });
  await each(t, runs, "a listening Unix socket is recorded as a socket", (o) => {
    verified(o, "socket");
    equal(scopeRecord(o.dir).socket!.sock, "special:socket");
  });
  await each(t, runs, "results.json as a socket: FALSE_COMPLETION naming it", (o) => {
    refused(o, "socket_results", /^results\.json (is not a regular file \(socket\)|cannot be opened)/);
  });
  await each(
    t,
    runs,
    "a 4,872-character path and a 100-deep chain: the walk says where it stopped",
    (o) => {
      verified(o, "longpath");
      const stops = Object.values(scopeRecord(o.dir).longpath!).filter((v) => v.startsWith("unreadable:"));
      ok(stops.includes("unreadable:too deep") && stops.length >= 2, JSON.stringify(stops));
    },
  );
  await each(t, runs, "a real venv (links to a directory and to the interpreter) just works", (o) => {
    verified(o, "venv");
    deepEqual(o.incidents.filter((i) => i.node === "venv"), []);
    match(scopeRecord(o.dir).venv!["venv/lib64"] ?? "", /^link:/);
    match(log(o, "venv"), /results written by the venv's interpreter/);
  });
  await each(t, runs, "links to /dev/zero are recorded as links and never read", (o) => {
    verified(o, "devzero");
    const rec = scopeRecord(o.dir).devzero!;
    for (const f of ["zero", "metrics.jsonl", "ckpt/step_000002.json"]) match(rec[f] ?? "", /^link:/, f);
    deepEqual([status(o, "devzero")!.best, status(o, "devzero")!.ckpts.length], [null, 0]);
  });
  await each(t, runs, "results.json, metrics.jsonl and ckpt/ linked outside are never followed", (o) => {
    refused(o, "links_out", /^results\.json is a symlink \(not followed\)$/);
    deepEqual([status(o, "links_out")!.best, status(o, "links_out")!.ckpts.length], [null, 0]);
  });
  await each(t, runs, "arrow replay --check verifies the black box", async (o, m) => {
    const r = await SCOPE.lab.cli(m, ["replay", o.dir, "--check"]);
    equal(r.code, 0, how(r));
  });
});

Deno.test("manifests: 200,000 deep, 100 MB, a string score, 1e999", async (t) => {
  const runs = await SCOPE.runs;
  await each(t, runs, SURVIVES, survives);
  await each(t, runs, "nested 200,000 deep: FALSE_COMPLETION naming the depth", (o) => {
    refused(o, "deep", /nesting deeper than 32 levels at line 1, column \d+$/);
  });
  await each(t, runs, "100 MB: FALSE_COMPLETION naming its size; nothing of it in the black box", (o) => {
    refused(o, "huge", /^results\.json is larger than 1048576 bytes \(104857\d+\)$/);
    const pad = "A".repeat(4096);
    for (const f of ["state.json", "replay.jsonl", "incidents.jsonl"]) {
      ok(!text(`${o.dir}/${f}`).includes(pad), `${f} holds the manifest's padding`);
    }
  });
  await each(t, runs, 'a string score "0.99": FALSE_COMPLETION, never a score', (o) => {
    refused(o, "string_score", /score must be a finite number, got "0\.99" \(a string\)/);
    ok(incidentsOf(o, "string_score", "FALSE_COMPLETION").every((i) => i.evidence.claimed_score === null));
  });
  await each(
    t,
    runs,
    "a score of 1e999: FALSE_COMPLETION, never Infinity in memory or null on disk",
    (o) => {
      refused(o, "inf_score", /the number at \$\.score is out of range/);
      ok(!/Infinity/.test(text(`${o.dir}/state.json`)));
    },
  );
});

Deno.test("manifests under @claim with an evaluator: a FIFO, a link to /dev/zero, 100 MB", async (t) => {
  const runs = await CLAIMS.runs;
  await each(t, runs, SURVIVES, survives);
  for (const w of ["fifo", "zero", "huge"]) {
    await each(t, runs, `${w}_claim: FALSE_COMPLETION naming results.json`, (o) => {
      refused(o, `${w}_claim`, /results\.json/);
    });
  }
});

Deno.test("self-written evidence under @claim: a mock-kind artifact, a log with the score", async (t) => {
  const runs = await SCOPE.runs;
  await each(t, runs, SURVIVES, survives);
  await each(t, runs, 'an artifact {"kind":"mock","score":0.999} is recomputed, not believed', (o) => {
    refused(o, "mock_artifact", /^acceptance exited 1$/);
    const ev = incidentsOf(o, "mock_artifact", "FALSE_COMPLETION")[0]!.evidence;
    match(String(ev.stderr), /is not a poly_ridge model \(kind 'mock'\)/);
  });
  await each(t, runs, "a log ending in 0.999 is not a recomputation", (o) => {
    refused(o, "log_artifact", /^acceptance exited 1$/);
    equal(incidentsOf(o, "log_artifact", "FALSE_COMPLETION")[0]!.evidence.claimed_score, 0.999);
  });
  await each(t, runs, "the baseline stands: RESULT WITHHELD, never RESEARCH ANSWERED", (o) => {
    verified(o, "baseline");
    equal(o.state?.verdict, "RESULT WITHHELD");
  });
});

Deno.test("floods: 20 MB of metrics, a 10 MB line, 1,000 checkpoints, 5,000 files", async (t) => {
  const runs = await SCOPE.runs;
  await each(t, runs, SURVIVES, survives);
  await each(t, runs, "a metrics flood is taken in bounded slices; the black box stays small", (o) => {
    verified(o, "flood");
    ok((status(o, "flood")!.best ?? 0) > 0, JSON.stringify(status(o, "flood")));
    ok(size(`${o.dir}/replay.jsonl`) < 20 << 20, "replay.jsonl smaller than the flood");
  });
  await each(t, runs, "a 10 MB metrics line is skipped; the lines after it still count", (o) => {
    verified(o, "giant_line");
    equal(status(o, "giant_line")!.best, 0.3, "the line after the 10 MB one was never read");
  });
  await each(t, runs, "1,000 checkpoints are all seen", (o) => {
    verified(o, "ckpt_flood");
    equal(status(o, "ckpt_flood")!.ckpts.length, 1000);
  });
  await each(t, runs, "5,000 files in a scope are all recorded", (o) => {
    verified(o, "many_files");
    equal(Object.keys(scopeRecord(o.dir).many_files!).filter((k) => k.startsWith("d")).length, 5000);
  });
});
