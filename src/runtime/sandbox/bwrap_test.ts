import { deepEqual, equal } from "node:assert/strict";
import { bwrapLayout, COPY_LIMIT, shadowWrites, syncLane } from "./bwrap.ts";
import { BWRAP, needs, NO_BWRAP } from "../../../tests/helpers/needs.ts";
import { tempDirs } from "../../../tests/helpers/temp.ts";

const ignored = needs("bwrap_test", "the sandbox start case", NO_BWRAP);

const { tempDir, cleanUp } = tempDirs("arrow-bwrap-test-");

function layoutOver(watched: string) {
  const run = tempDir();
  Deno.mkdirSync(`${run}/nodes/a`, { recursive: true });
  return bwrapLayout({
    runDir: run,
    runsDir: null,
    scope: `${run}/nodes/a`,
    readable: [],
    writable: [],
    shadowRoot: `${run}/.arrow/shadow/a.1`,
    scopes: ["a"],
    watched: [watched],
    home: null,
  });
}

Deno.test("bwrapLayout() binds a shared directory's entries so that one vanishing does not abort the start", () => {
  const shared = tempDir();
  Deno.mkdirSync(`${shared}/d`);
  Deno.symlinkSync("/nonexistent", `${shared}/l`);
  const { args, shadows } = layoutOver(shared);
  const at = args.indexOf(`${shared}/d`);
  equal(args[at - 1], "--ro-bind-try");
  deepEqual(args.slice(args.indexOf(`${shared}/l`) - 2, args.indexOf(`${shared}/l`) + 1), [
    "--symlink",
    "/nonexistent",
    `${shared}/l`,
  ]);
  deepEqual(shadows[0]!.ignore.sort(), ["d", "l"]);
  cleanUp();
});

Deno.test({
  name:
    "bwrapLayout(): a worker still starts when an entry of a watched directory is removed before bwrap runs",
  ignore: ignored,
}, async () => {
  const shared = tempDir();
  for (let i = 0; i < 5; i++) Deno.mkdirSync(`${shared}/gone${i}`);
  const { args } = layoutOver(shared);
  for (let i = 0; i < 5; i++) Deno.removeSync(`${shared}/gone${i}`);
  const out = await new Deno.Command(BWRAP!, { args: [...args, "--", "true"], stderr: "piped" }).output();
  cleanUp();
  equal(out.success, true, new TextDecoder().decode(out.stderr));
});

/** A run whose scope `b` reads its verified input `a` through a copy, over a lean shared directory. */
function leanLayout(shared: string, needed: string[], inputFiles: Record<string, string>) {
  const run = tempDir();
  for (const s of ["a", "b"]) Deno.mkdirSync(`${run}/nodes/${s}`, { recursive: true });
  for (const [name, text] of Object.entries(inputFiles)) {
    Deno.writeTextFileSync(`${run}/nodes/a/${name}`, text);
  }
  const layout = bwrapLayout({
    runDir: run,
    runsDir: null,
    scope: `${run}/nodes/b`,
    readable: [`${run}/nodes/a`],
    writable: [],
    shadowRoot: `${run}/.arrow/shadow/b.1`,
    scopes: ["a", "b"],
    watched: [shared],
    lean: [shared],
    needed,
    copied: [`${run}/nodes/a`],
    home: null,
  });
  return { run, ...layout };
}

Deno.test("bwrapLayout() never lists a lean shared directory: its argv is the same at 10 and 5,000 entries", () => {
  const shared = tempDir();
  Deno.mkdirSync(`${shared}/mine/bin`, { recursive: true });
  const grow = (n: number) => {
    for (let i = 0; i < n; i++) Deno.mkdirSync(`${shared}/other${i}`, { recursive: true });
  };
  grow(10);
  const small = leanLayout(shared, [`${shared}/mine/bin`], {});
  grow(5_000);
  const big = leanLayout(shared, [`${shared}/mine/bin`], {});
  const strip = (a: string[], run: string) => a.map((x) => x.replaceAll(run, "RUN"));
  deepEqual(strip(big.args, big.run), strip(small.args, small.run));
  // Only what the program needs is bound back; everything else of the shared directory is not there.
  equal(big.args.filter((a) => a.startsWith(`${shared}/`)).length, 2);
  deepEqual(big.shadows.find((s) => s.shows === shared)!.ignore, ["mine"]);
  deepEqual(big.refusing, []);
  cleanUp();
});

Deno.test("shadowWrites() names writes into a copied input, edits and deletions, and nothing else", () => {
  const { shadows, run } = leanLayout(tempDir(), [], { "harness.py": "print(1)\n", "keep.txt": "k\n" });
  const lane = shadows.find((s) => s.shows === "nodes/a")!;
  equal(Deno.readTextFileSync(`${lane.dir}/harness.py`), "print(1)\n", "the copy reads as the input");
  deepEqual(shadowWrites(lane), [], "an untouched copy is silent");
  Deno.writeTextFileSync(`${lane.dir}/harness.py`, "print('hacked')\n");
  Deno.writeTextFileSync(`${lane.dir}/evil.txt`, "x");
  Deno.removeSync(`${lane.dir}/keep.txt`);
  deepEqual(shadowWrites(lane), [
    { rel: "evil.txt", op: "write" },
    { rel: "harness.py", op: "write" },
    { rel: "keep.txt", op: "delete" },
  ]);
  equal(Deno.readTextFileSync(`${run}/nodes/a/harness.py`), "print(1)\n", "the input itself is untouched");
  cleanUp();
});

Deno.test("bwrapLayout() binds an input past COPY_LIMIT read-only and says so", () => {
  const files: Record<string, string> = {};
  for (let i = 0; i <= COPY_LIMIT.files; i++) files[`f${i}`] = "";
  const { refusing, args, run } = leanLayout(tempDir(), [], files);
  deepEqual(refusing, [{ path: `${run}/nodes/a`, why: "more than 2,000 files (COPY_LIMIT)" }]);
  const at = args.lastIndexOf(`${run}/nodes/a`);
  equal(args[at - 2], "--ro-bind");
  cleanUp();
});

Deno.test({
  name: "bwrapLayout(): inside the sandbox a write into a copied input succeeds, lands in the copy, is seen",
  ignore: ignored,
}, async () => {
  const { args, shadows, run } = leanLayout(tempDir(), [], { "eval.sh": "echo 0.5\n" });
  const out = await new Deno.Command(BWRAP!, {
    args: [...args, "--", "sh", "-c", `echo 'echo 0.999' > ${run}/nodes/a/eval.sh`],
    stderr: "piped",
  }).output();
  equal(out.success, true, new TextDecoder().decode(out.stderr));
  deepEqual(shadowWrites(shadows.find((s) => s.shows === "nodes/a")!), [{ rel: "eval.sh", op: "write" }]);
  equal(Deno.readTextFileSync(`${run}/nodes/a/eval.sh`), "echo 0.5\n");
  cleanUp();
});

/** The common layout: `plan.yaml`, its evaluator and `runs/` side by side; the run's scope `b` writes. */
function planBesideRuns(watchPlan: boolean) {
  const plan = tempDir();
  Deno.writeTextFileSync(`${plan}/plan.yaml`, "nodes: []\n");
  Deno.writeTextFileSync(`${plan}/evaluate.py`, "print(0.5)\n");
  const run = `${plan}/runs/r1`;
  Deno.mkdirSync(`${plan}/runs/r0`, { recursive: true });
  Deno.writeTextFileSync(`${plan}/runs/r0/secret.txt`, "another run\n");
  Deno.mkdirSync(`${run}/nodes/b`, { recursive: true });
  const layout = bwrapLayout({
    runDir: run,
    runsDir: `${plan}/runs`,
    scope: `${run}/nodes/b`,
    readable: [plan],
    writable: [],
    shadowRoot: `${run}/.arrow/shadow/b.1`,
    scopes: ["b"],
    watched: watchPlan ? [plan] : [],
    copied: [plan],
    home: null,
  });
  return { plan, run, ...layout, lane: layout.shadows.find((s) => s.shows === plan)! };
}

for (const watchPlan of [false, true]) {
  Deno.test({
    name: `bwrapLayout(): an edit of the evaluator beside the runs lands in a copy and is seen${
      watchPlan ? " (the plan's directory is the project directory)" : ""
    }`,
    ignore: ignored,
  }, async () => {
    const { plan, run, args, lane, shadows, refusing } = planBesideRuns(watchPlan);
    deepEqual(refusing, []);
    equal(lane.baseline?.["runs/r0/secret.txt"], undefined, "the runs are not copied");
    const sh = (cmd: string) =>
      new Deno.Command(BWRAP!, { args: [...args, "--", "sh", "-c", cmd], stdout: "piped", stderr: "piped" })
        .output();
    const quiet = await sh(`cat ${plan}/evaluate.py; ls ${plan}/runs; echo ok > ${run}/nodes/b/out.txt`);
    equal(quiet.success, true, new TextDecoder().decode(quiet.stderr));
    equal(new TextDecoder().decode(quiet.stdout), "print(0.5)\nr1\n", "other runs are hidden");
    deepEqual(shadows.flatMap(shadowWrites), [], "mount points and the scope's own writes are no escape");
    const out = await sh(`echo 'print(0.999)' > ${plan}/evaluate.py && touch ${plan}/new.txt`);
    equal(out.success, true, new TextDecoder().decode(out.stderr));
    deepEqual(shadowWrites(lane), [{ rel: "evaluate.py", op: "write" }, { rel: "new.txt", op: "write" }]);
    equal(Deno.readTextFileSync(`${plan}/evaluate.py`), "print(0.5)\n", "the evaluator itself is untouched");
    equal(Deno.readTextFileSync(`${run}/nodes/b/out.txt`), "ok\n");
    cleanUp();
  });
}

Deno.test({
  name:
    "bwrapLayout(): a stream source is a copy kept in step: the reader sees what its owner writes later, " +
    "and its own write into it is seen",
  ignore: ignored,
}, async () => {
  const run = tempDir();
  for (const s of ["src", "r"]) Deno.mkdirSync(`${run}/nodes/${s}`, { recursive: true });
  Deno.writeTextFileSync(`${run}/nodes/src/metrics.jsonl`, "1\n");
  const { args, shadows, refusing } = bwrapLayout({
    runDir: run,
    runsDir: null,
    scope: `${run}/nodes/r`,
    readable: [`${run}/nodes/src`],
    writable: [],
    shadowRoot: `${run}/.arrow/shadow/r.1`,
    scopes: ["src", "r"],
    watched: [],
    synced: [`${run}/nodes/src`],
    home: null,
  });
  deepEqual(refusing, []);
  const lane = shadows.find((s) => s.shows === "nodes/src")!;
  const sh = async (cmd: string) => {
    const out = await new Deno.Command(BWRAP!, {
      args: [...args, "--", "sh", "-c", cmd],
      stdout: "piped",
      stderr: "piped",
    }).output();
    return new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  };
  // The owner writes on: after a sync the reader sees it.
  Deno.writeTextFileSync(`${run}/nodes/src/metrics.jsonl`, "1\n2\n");
  Deno.mkdirSync(`${run}/nodes/src/ckpt`);
  Deno.writeTextFileSync(`${run}/nodes/src/ckpt/step_1.json`, "{}");
  deepEqual(shadowWrites(lane), [], "the owner's writes are no reader's");
  syncLane(lane);
  equal(await sh(`cat ${run}/nodes/src/metrics.jsonl ${run}/nodes/src/ckpt/step_1.json`), "1\n2\n{}");
  // The reader writes into its source: the write succeeds in the copy, is seen, and the source is untouched.
  await sh(`echo forged > ${run}/nodes/src/ckpt/step_1.json; echo x > ${run}/nodes/src/evil.txt`);
  deepEqual(shadowWrites(lane), [{ rel: "ckpt/step_1.json", op: "write" }, { rel: "evil.txt", op: "write" }]);
  equal(Deno.readTextFileSync(`${run}/nodes/src/ckpt/step_1.json`), "{}");
  // The next sync puts the source's version back into the copy and removes what the reader added.
  syncLane(lane);
  deepEqual(shadowWrites(lane), []);
  equal(await sh(`cat ${run}/nodes/src/ckpt/step_1.json; ls ${run}/nodes/src`), "{}ckpt\nmetrics.jsonl\n");
  Deno.removeSync(`${run}/nodes/src/metrics.jsonl`);
  syncLane(lane);
  equal(await sh(`ls ${run}/nodes/src`), "ckpt\n", "a file its owner removed is gone from the copy too");
  cleanUp();
});

Deno.test({
  name: "bwrapLayout(): the run's own directory, other runs and ~/.ssh look empty; a write into them is seen",
  ignore: ignored,
}, async () => {
  const runs = tempDir();
  const home = tempDir();
  Deno.mkdirSync(`${home}/.ssh`);
  Deno.writeTextFileSync(`${home}/.ssh/id_rsa`, "secret\n");
  const run = `${runs}/r1`;
  Deno.mkdirSync(`${runs}/r0`);
  Deno.writeTextFileSync(`${runs}/r0/state.json`, "{}");
  Deno.mkdirSync(`${run}/nodes/a`, { recursive: true });
  Deno.mkdirSync(`${run}/.arrow/faults`, { recursive: true });
  Deno.writeTextFileSync(`${run}/.arrow/faults/a.1.jsonl`, "");
  Deno.writeTextFileSync(`${run}/replay.jsonl`, "{}\n");
  const { args, shadows } = bwrapLayout({
    runDir: run,
    runsDir: runs,
    scope: `${run}/nodes/a`,
    readable: [],
    writable: [`${run}/.arrow/faults/a.1.jsonl`],
    shadowRoot: `${run}/.arrow/shadow/a.1`,
    scopes: ["a"],
    watched: [],
    home,
  });
  const sh = (cmd: string) =>
    new Deno.Command(BWRAP!, { args: [...args, "--", "sh", "-c", cmd], stdout: "piped" }).output();
  const seen = await sh(`ls -A ${home}/.ssh; ls ${runs}; cat ${run}/replay.jsonl 2>/dev/null || echo hidden`);
  equal(new TextDecoder().decode(seen.stdout), "r1\nhidden\n");
  deepEqual(shadows.flatMap((s) => shadowWrites(s)), [], "mount points are no write");
  await sh(
    `echo k >> ${home}/.ssh/authorized_keys; echo forged >> ${run}/replay.jsonl; mkdir -p ${runs}/r0 && echo x > ${runs}/r0/state.json; echo y > ${runs}/new.txt`,
  );
  const got = shadows.flatMap((s) => shadowWrites(s).map((w) => [s.shows || "(run)", w.rel, w.op]));
  // Both lists sorted the same way: the temporary directories' names are random.
  deepEqual(
    got.sort(),
    [
      ["(run)", "replay.jsonl", "write"],
      [`${home}/.ssh`, "authorized_keys", "write"],
      [runs, "new.txt", "write"],
      [runs, "r0/state.json", "write"],
    ].sort(),
  );
  equal(Deno.readTextFileSync(`${run}/replay.jsonl`), "{}\n", "the run's black box is untouched");
  equal(Deno.readTextFileSync(`${runs}/r0/state.json`), "{}");
  deepEqual([...Deno.readDirSync(`${home}/.ssh`)].map((e) => e.name), ["id_rsa"]);
  cleanUp();
});
