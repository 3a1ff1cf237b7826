/**
 * The single binary: `deno task compile`'s command, run for real. Deno needs its `denort` runtime to build
 * a binary and downloads it from dl.deno.land unless DENORT_BIN points at a local copy. The build is tried
 * once when this module loads; where it cannot get its runtime the test is ignored with the reason printed
 * (everything the binary embeds is tested through `deno run` elsewhere). Where it builds, the binary must
 * run a scenario with its workers self-executed from the binary.
 */
import { deepEqual, equal, match } from "node:assert/strict";
import { ROOT } from "./helpers/cli.ts";

const task = JSON.parse(Deno.readTextFileSync(`${ROOT}deno.json`)).tasks.compile as string;
const dir = await Deno.makeTempDir();
// The task's own compile command, with the output in a temporary directory.
const compileArgs = task.split("&& deno ")[1]!.split(" ").map((a) => a === "dist/arrow" ? `${dir}/arrow` : a);
const built = await new Deno.Command(Deno.execPath(), {
  args: compileArgs,
  cwd: ROOT,
  stdout: "piped",
  stderr: "piped",
}).output();
const buildErr = new TextDecoder().decode(built.stderr);
const noRuntime = !built.success && /dl\.deno\.land|denort|dns error|error sending request/i.test(buildErr) &&
  !Deno.env.get("DENORT_BIN");
if (noRuntime) {
  console.log(
    "compile_test: ignored — deno compile must download its denort runtime from dl.deno.land, which this " +
      "machine cannot reach (set DENORT_BIN to a local denort to build here); everything the binary embeds " +
      "is tested through deno run",
  );
  await Deno.remove(dir, { recursive: true });
}

Deno.test("the compile task builds dist/arrow from src/cli/main.ts", () => {
  match(task, /deno compile -A --no-prompt .*--output dist\/arrow src\/cli\/main\.ts/);
  // The tree harness runs from the binary too: its job's worker and the per-fit workers are in it, and
  // the workers' narrower permissions need the flag at compile time.
  for (const flag of ["--unstable-worker-options", "harness/lane_worker.ts", "harness/fold_worker.ts"]) {
    match(task, new RegExp(flag.replace(".", "\\.")));
  }
});

Deno.test({
  name: "deno compile builds a binary that runs a scenario on its own",
  ignore: noRuntime,
}, async () => {
  equal(built.success, true, buildErr);
  const run = async (...args: string[]) => {
    const o = await new Deno.Command(`${dir}/arrow`, { args, cwd: dir, stdout: "piped", stderr: "piped" })
      .output();
    return { code: o.code, stdout: new TextDecoder().decode(o.stdout) };
  };
  match((await run("--version")).stdout, /^arrow \d+\.\d+\.\d+/);
  const fromSource = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--no-prompt", `${ROOT}src/cli/main.ts`, "scenarios"],
    stdout: "piped",
  }).output();
  equal((await run("scenarios")).stdout, new TextDecoder().decode(fromSource.stdout));
  const r = await run("run", "--scenario", "trap_scope", "--json", "--runs-dir", `${dir}/runs`);
  equal(r.code, 0);
  const result = JSON.parse(r.stdout);
  // The binary's workers have no Deno permission layer: under bubblewrap the write is blamed on N4,
  // without it the guard reverts it on N3's scope (see tests/self_exec_test.ts for both cases).
  deepEqual(result.incidents.map((i: { type: string }) => i.type), ["SCOPE_VIOLATION"]);
  // Tree mode from the binary alone: its harness is `arrow __worker tree_harness`.
  const t = await run(
    "tree",
    "--data",
    `${ROOT}tests/fixtures/tree/small.csv`,
    "--target",
    "label",
    "--cycles",
    "1",
    "--json",
    "--runs-dir",
    `${dir}/runs`,
  );
  equal(t.code, 0, t.stdout);
  await Deno.remove(dir, { recursive: true });
});
