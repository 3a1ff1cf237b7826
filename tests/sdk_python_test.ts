/**
 * The Python SDK's command line, which shell workers use: `python3 arrow_sdk.py metric|checkpoint|manifest|
 * hash|data-file|split-file|resume|input|env`. Each call is its own process, so a fault must fire once per
 * attempt across calls, and errors must read as one line on stderr with a non-zero exit.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { sha256 } from "../src/workers/lib/files.ts";

const CLI = new URL("../src/sdk/arrow_sdk.py", import.meta.url).pathname;
const PYTHON = (() => {
  try {
    return Deno.statSync("/usr/bin/python3").isFile ? "/usr/bin/python3" : "python3";
  } catch {
    return "python3";
  }
})();

async function fixture() {
  const root = await Deno.makeTempDir({ prefix: "arrow-sdk-cli-" });
  const run = `${root}/run`;
  const scope = `${run}/nodes/base`;
  const data = `${run}/nodes/data`;
  await Deno.mkdir(scope, { recursive: true });
  await Deno.mkdir(data, { recursive: true });
  await Deno.writeTextFile(`${data}/data.csv`, "x,y\n1,2\n3,4\n");
  await Deno.writeTextFile(`${data}/split.json`, '{"train":[0],"dev":[1]}\n');
  const tuple = {
    data_hash: await sha256(Deno.readFileSync(`${data}/data.csv`)),
    split_hash: await sha256(Deno.readFileSync(`${data}/split.json`)),
    protocol_version: "p1",
    seed: 3,
  };
  await Deno.writeTextFile(
    `${data}/results.json`,
    JSON.stringify({ node: "data", ...tuple, artifact: "data.csv", split: "split.json" }),
  );
  const env: Record<string, string> = {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    ARROW_RUN_DIR: run,
    ARROW_SCOPE: scope,
    ARROW_NODE: "base",
    ARROW_METRIC: "dev_r2",
    ARROW_INPUTS: JSON.stringify({ data }),
    ARROW_FROZEN: JSON.stringify(tuple),
    ARROW_FAULT_LOG: `${root}/faults.jsonl`,
    PYTHONDONTWRITEBYTECODE: "1",
  };
  const cli = async (args: string[], extra: Record<string, string> = {}) => {
    const out = await new Deno.Command(PYTHON, {
      args: [CLI, ...args],
      env: { ...env, ...extra },
      clearEnv: true,
      cwd: scope,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const dec = new TextDecoder();
    return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
  };
  return { root, run, scope, data, tuple, env, cli };
}

const jsonLines = (path: string) =>
  Deno.readTextFileSync(path).split("\n").filter(Boolean).map((l) => JSON.parse(l));

Deno.test("arrow_sdk.py (command line) serves shell workers", async (t) => {
  const f = await fixture();
  try {
    await t.step(
      "metric appends a line; whole numbers stay integers; key=value extras parse as JSON",
      async () => {
        equal((await f.cli(["metric", "3", "0.5", "loss=0.25", "tag=warm", "ok=true"])).code, 0);
        equal((await f.cli(["metric", "4.5", "1"])).code, 0);
        deepEqual(jsonLines(`${f.scope}/metrics.jsonl`), [
          { step: 3, dev_r2: 0.5, loss: 0.25, tag: "warm", ok: true },
          { step: 4.5, dev_r2: 1 },
        ]);
        ok(Deno.readTextFileSync(`${f.scope}/metrics.jsonl`).startsWith('{"step":3,"dev_r2":0.5,'));
      },
    );

    await t.step("checkpoint copies a file into ckpt/ under its step, keeping the extension", async () => {
      await Deno.writeTextFile(`${f.scope}/.state.json`, '{"tried":4}\n');
      const r = await f.cli(["checkpoint", "4", ".state.json"]);
      equal(r.code, 0, r.stderr);
      equal(r.stdout.trim(), `${f.scope}/ckpt/step_000004.json`);
      equal(Deno.readTextFileSync(`${f.scope}/ckpt/step_000004.json`), '{"tried":4}\n');
      deepEqual([...Deno.readDirSync(`${f.scope}/ckpt`)].map((e) => e.name), ["step_000004.json"]);
    });

    await t.step("manifest writes results.json; code_sha and wall_s only when given", async () => {
      await Deno.writeTextFile(`${f.scope}/model.json`, "{}");
      const script = `${f.root}/worker.sh`;
      await Deno.writeTextFile(script, "#!/bin/sh\necho hi\n");
      const args = ["manifest", "--score", "0.33", "--artifact", "model.json"];
      const paths = ["--data", `${f.data}/data.csv`, "--split", `${f.data}/split.json`];
      const r = await f.cli([...args, ...paths, "--code", script, "--wall-s", "12", "--set", "feature=x3"]);
      equal(r.code, 0, r.stderr);
      const m = JSON.parse(Deno.readTextFileSync(`${f.scope}/results.json`));
      deepEqual(m, {
        node: "base",
        metric: "dev_r2",
        score: 0.33,
        artifact: "model.json",
        ...f.tuple,
        code_sha: (await sha256(Deno.readFileSync(script))).slice(0, 12),
        wall_s: 12,
        feature: "x3",
      });
      deepEqual(JSON.parse(r.stdout), m);
      equal((await f.cli(args)).code, 0);
      const bare = JSON.parse(Deno.readTextFileSync(`${f.scope}/results.json`));
      deepEqual(["code_sha" in bare, "wall_s" in bare, "data_hash" in bare, bare.seed], [
        false,
        false,
        false,
        3,
      ]);
    });

    await t.step("hash, data-file, split-file, input, resume and env print what a script needs", async () => {
      equal((await f.cli(["hash", `${f.data}/data.csv`])).stdout.trim(), f.tuple.data_hash);
      equal((await f.cli(["data-file"])).stdout, `${f.data}/data.csv\n`);
      equal((await f.cli(["split-file"])).stdout, `${f.data}/split.json\n`);
      equal((await f.cli(["input", "split.json"])).stdout, `${f.data}/split.json\n`);
      equal((await f.cli(["resume"])).stdout, "");
      const ck = `${f.scope}/ckpt/step_000004.json`;
      equal((await f.cli(["resume"], { ARROW_RESUME_FROM: ck })).stdout, `${ck}\n`);
      const e = JSON.parse((await f.cli(["env"])).stdout);
      deepEqual([e.node, e.scope, e.inputs, e.frozen.seed], ["base", f.scope, { data: f.data }, 3]);
    });

    await t.step("errors are one line on stderr and a non-zero exit", async () => {
      const noNode = await f.cli(["manifest", "--score", "1"], { ARROW_NODE: "" });
      equal(noNode.code, 1);
      equal(
        noNode.stderr,
        "arrow_sdk: Cannot write results.json: " +
          "ARROW_NODE is not set (arrow sets it; set it yourself when you run the program outside arrow)\n",
      );
      const nan = await f.cli(["metric", "9", "nan"]);
      equal(nan.code, 1);
      match(nan.stderr, /^arrow_sdk: Cannot log metric value for step 9: nan is not a finite number\n$/);
      const missing = await f.cli(["input", "nope.txt"]);
      equal(missing.code, 1);
      match(missing.stderr, /Cannot find 'nope.txt' in any input scope \(data\)/);
      equal((await f.cli(["metric", "three", "1"])).code, 2, "a usage error exits 2");
      equal((await f.cli(["hash", `${f.root}/absent`])).code, 1);
    });

    await t.step("a fault fires once per attempt across separate calls", async () => {
      const faults = JSON.stringify([
        { kind: "out_of_scope_write", node: "base", path: "data/leak.txt", at_tick: 5 },
        { kind: "crash", node: "base", at_step: 7, exit: 4 },
      ]);
      for (const s of ["5", "6"]) {
        equal((await f.cli(["metric", s, "0.1"], { ARROW_FAULTS: faults })).code, 0);
      }
      const crashed = await f.cli(["metric", "7", "0.1"], { ARROW_FAULTS: faults });
      equal(crashed.code, 4);
      match(crashed.stderr, /injected crash at step 7 \(fault crash, exit 4\)/);
      deepEqual(jsonLines(`${f.root}/faults.jsonl`).map((l) => [l.kind, l.step, l.attempt]), [
        ["out_of_scope_write", 5, 1],
        ["crash", 7, 1],
      ]);
      const retry = await f.cli(["metric", "7", "0.1"], { ARROW_FAULTS: faults, ARROW_ATTEMPT: "2" });
      equal(retry.code, 4, "attempt 2 is a new attempt: the fault fires again when the engine sends it");
      ok(Deno.readTextFileSync(`${f.data}/leak.txt`).includes("base"));
    });
  } finally {
    await Deno.remove(f.root, { recursive: true });
  }
});
