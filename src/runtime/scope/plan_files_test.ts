import { deepEqual, equal } from "node:assert/strict";
import type { RunState } from "../../model/state.ts";
import { BlobStore } from "./blobs.ts";
import { declaredFiles, PlanFiles } from "./plan_files.ts";

/** A run whose plan (in `dir`) declares `evaluate.py` and an acceptance script given by absolute path. */
function setUp() {
  const dir = Deno.makeTempDirSync({ prefix: "arrow-plan-files-" });
  Deno.writeTextFileSync(`${dir}/evaluate.py`, "print(0.5)\n");
  Deno.writeTextFileSync(`${dir}/accept.sh`, "exit 1\n");
  Deno.chmodSync(`${dir}/accept.sh`, 0o755);
  Deno.mkdirSync(`${dir}/runs/r/.arrow`, { recursive: true });
  const state = {
    plan: {
      dir,
      protocol: { evaluate: ["python3", "evaluate.py", "{artifact}", "missing.py"] },
      nodes: [{ acceptance: ["@claim"] }, { acceptance: ["sh", `${dir}/accept.sh`] }],
    },
  } as unknown as RunState;
  const blobs = new BlobStore(`${dir}/runs/r/.arrow/blobs`);
  return { dir, state, blobs, files: new PlanFiles(`${dir}/runs/r`, blobs) };
}

Deno.test("declaredFiles() names the plan's evaluator and acceptance files that exist", () => {
  const { dir, state } = setUp();
  deepEqual(declaredFiles(state), [`${dir}/accept.sh`, `${dir}/evaluate.py`]);
  Deno.removeSync(dir, { recursive: true });
});

Deno.test("PlanFiles: an edited evaluator is found and put back (mode too); a touch is no change", () => {
  const { dir, state, files } = setUp();
  deepEqual(files.check(state), [], "the first look holds the files");
  Deno.utimeSync(`${dir}/evaluate.py`, new Date(), new Date(Date.now() + 5000));
  deepEqual(files.check(state), [], "same bytes, new time: no change");
  Deno.writeTextFileSync(`${dir}/evaluate.py`, "print(0.999)\n");
  Deno.writeTextFileSync(`${dir}/accept.sh`, "exit 0\n");
  deepEqual(files.check(state), [
    { path: `${dir}/accept.sh`, restored: true },
    { path: `${dir}/evaluate.py`, restored: true },
  ]);
  equal(Deno.readTextFileSync(`${dir}/evaluate.py`), "print(0.5)\n");
  equal(Deno.statSync(`${dir}/accept.sh`).mode! & 0o777, 0o755);
  deepEqual(files.check(state), []);
  deepEqual(files.broken(state), []);
  Deno.removeSync(dir, { recursive: true });
});

Deno.test("PlanFiles: a file that cannot be put back stays broken; a resumed run holds the run's start", () => {
  const { dir, state, blobs, files } = setUp();
  files.check(state);
  Deno.removeSync(blobs.dir, { recursive: true });
  Deno.writeTextFileSync(`${dir}/evaluate.py`, "print(0.999)\n");
  deepEqual(files.check(state), [{ path: `${dir}/evaluate.py`, restored: false }]);
  deepEqual(files.broken(state), [`${dir}/evaluate.py`]);
  deepEqual(files.check(state), [], "reported once");
  deepEqual(files.broken(state), [`${dir}/evaluate.py`], "and still refusing claims");
  // A resumed run reads the record instead of holding the edited file as it is now.
  const again = new PlanFiles(`${dir}/runs/r`, new BlobStore(blobs.dir));
  deepEqual(again.check(state), [{ path: `${dir}/evaluate.py`, restored: false }]);
  deepEqual(again.broken(state), [`${dir}/evaluate.py`]);
  Deno.removeSync(dir, { recursive: true });
});

Deno.test("PlanFiles, unconfined: a file that appears, changes or goes in the plan's directory is named once", () => {
  const { dir, state, blobs } = setUp();
  Deno.writeTextFileSync(`${dir}/lib.py`, "X = 1\n");
  const files = PlanFiles.forRun(`${dir}/runs/r`, blobs, true, `${dir}/runs`);
  deepEqual(files.check(state), [], "the first look lists the directory");
  Deno.writeTextFileSync(`${dir}/sitecustomize.py`, "import os\n");
  Deno.writeTextFileSync(`${dir}/lib.py`, "X = 2\n");
  Deno.writeTextFileSync(`${dir}/runs/r/state.json`, "{}", { create: true });
  deepEqual(files.check(state), [
    { path: `${dir}/lib.py`, op: "write", restored: false },
    { path: `${dir}/sitecustomize.py`, op: "write", restored: false },
  ], "the runs are not the plan's files");
  deepEqual(files.check(state), [], "reported once");
  Deno.removeSync(`${dir}/lib.py`);
  deepEqual(files.check(state), [{ path: `${dir}/lib.py`, op: "delete", restored: false }]);
  Deno.writeTextFileSync(`${dir}/evaluate.py`, "print(0.999)\n");
  deepEqual(files.check(state), [{ path: `${dir}/evaluate.py`, restored: true }], "a held file, put back");
  // A resumed run compares with the listing as last seen, not as it finds it.
  Deno.writeTextFileSync(`${dir}/new.txt`, "x");
  const again = PlanFiles.forRun(`${dir}/runs/r`, new BlobStore(blobs.dir), true, `${dir}/runs`);
  deepEqual(again.check(state), [{ path: `${dir}/new.txt`, op: "write", restored: false }]);
  Deno.removeSync(dir, { recursive: true });
});

Deno.test("PlanFiles: a confined run, or a plan directory past COPY_LIMIT, is not listed", () => {
  const { dir, state, blobs } = setUp();
  const confined = PlanFiles.forRun(`${dir}/runs/r`, blobs, false, `${dir}/runs`);
  confined.check(state);
  Deno.writeTextFileSync(`${dir}/new.txt`, "x");
  deepEqual(confined.check(state), [], "a sandbox's copy shows such a write instead");
  Deno.removeSync(`${dir}/runs/r/.arrow/plan_files.json`);
  for (let i = 0; i <= 2_000; i++) Deno.writeTextFileSync(`${dir}/f${i}`, "");
  const big = PlanFiles.forRun(`${dir}/runs/r`, blobs, true, `${dir}/runs`);
  big.check(state);
  Deno.writeTextFileSync(`${dir}/new2.txt`, "x");
  deepEqual(big.check(state), [], "too large to list at every look: only the held files are compared");
  Deno.removeSync(dir, { recursive: true });
});
