/**
 * The Deno SDK works where a Deno worker runs under Arrow: offline (--no-npm --no-remote, no config) with
 * narrow permissions — environment, reads of its scope and inputs, writes to its scope only — and says which
 * permission is missing when one is.
 */
import { deepEqual, equal, match } from "node:assert/strict";
import { sha256 } from "../src/workers/lib/files.ts";

const SDK = new URL("../src/sdk/", import.meta.url).pathname;

const WORKER = `
import * as arrow from ${JSON.stringify(`${SDK}arrow_sdk.ts`)};
const { data, split } = arrow.frozenData();
for (let step = 0; step <= 4; step++) {
  arrow.logMetric(step, step / 10, { lr: 0.1 });
  if (step % 2 === 0) arrow.saveCheckpoint(step, { step });
}
Deno.writeTextFileSync("model.json", "{}");
arrow.writeManifest(0.4, "model.json", { data, split });
`;

async function fixture() {
  const root = await Deno.makeTempDir({ prefix: "arrow-sdk-ts-" });
  const scope = `${root}/run/nodes/train`;
  const data = `${root}/run/nodes/data`;
  await Deno.mkdir(scope, { recursive: true });
  await Deno.mkdir(data, { recursive: true });
  await Deno.writeTextFile(`${data}/data.csv`, "x,y\n1,2\n");
  await Deno.writeTextFile(`${data}/split.json`, '{"train":[0],"dev":[0]}\n');
  const tuple = {
    data_hash: await sha256(Deno.readFileSync(`${data}/data.csv`)),
    split_hash: await sha256(Deno.readFileSync(`${data}/split.json`)),
    protocol_version: "p1",
    seed: 5,
  };
  await Deno.writeTextFile(
    `${data}/results.json`,
    JSON.stringify({ node: "data", ...tuple, artifact: "data.csv", split: "split.json" }),
  );
  const worker = `${root}/worker.ts`;
  await Deno.writeTextFile(worker, WORKER);
  const env = {
    ARROW_RUN_DIR: `${root}/run`,
    ARROW_SCOPE: scope,
    ARROW_NODE: "train",
    ARROW_METRIC: "dev_r2",
    ARROW_INPUTS: JSON.stringify({ data }),
    ARROW_FROZEN: JSON.stringify(tuple),
  };
  return { root, scope, data, tuple, worker, env };
}

async function deno(args: string[], env: Record<string, string>, cwd: string) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-npm", "--no-remote", "--no-config", "--no-lock", "--quiet", "--no-prompt", ...args],
    env: { ...env, NO_COLOR: "1" },
    clearEnv: true,
    cwd,
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
}

Deno.test("arrow_sdk.ts imports nothing but its own files and node: built-ins", () => {
  for (const e of Deno.readDirSync(SDK)) {
    if (!e.name.endsWith(".ts") || e.name.endsWith("_test.ts")) continue;
    const text = Deno.readTextFileSync(`${SDK}${e.name}`);
    for (const m of text.matchAll(/^\s*(?:import|export)\b[^;]*?from\s+"([^"]+)"/gm)) {
      match(m[1]!, /^(\.\/[a-z_]+\.ts|node:[a-z]+)$/, `${e.name} imports ${m[1]}`);
    }
  }
});

Deno.test("arrow_sdk.ts runs a worker offline with narrow permissions", async () => {
  const f = await fixture();
  try {
    const read = `--allow-read=${f.scope},${f.data},${SDK},${f.worker}`;
    const r = await deno(["--allow-env", read, `--allow-write=${f.scope}`, f.worker], f.env, f.scope);
    equal(r.code, 0, r.stderr);
    const metrics = Deno.readTextFileSync(`${f.scope}/metrics.jsonl`).trim().split("\n").map((l) =>
      JSON.parse(l)
    );
    deepEqual(metrics.map((m) => m.step), [0, 1, 2, 3, 4]);
    deepEqual([...Deno.readDirSync(`${f.scope}/ckpt`)].map((e) => e.name).sort(), [
      "step_000000.json",
      "step_000002.json",
      "step_000004.json",
    ]);
    const m = JSON.parse(Deno.readTextFileSync(`${f.scope}/results.json`));
    deepEqual(
      [m.node, m.score, m.artifact, m.data_hash, m.split_hash, m.seed, m.code_sha],
      [
        "train",
        0.4,
        "model.json",
        f.tuple.data_hash,
        f.tuple.split_hash,
        5,
        (await sha256(Deno.readFileSync(f.worker))).slice(0, 12),
      ],
    );
  } finally {
    await Deno.remove(f.root, { recursive: true });
  }
});

Deno.test("arrow_sdk.ts names the missing --allow-env permission", async () => {
  const f = await fixture();
  try {
    const r = await deno([`--allow-read`, `--allow-write=${f.scope}`, f.worker], f.env, f.scope);
    equal(r.code, 1);
    match(r.stderr, /Cannot read ARROW_\w+: run the worker with --allow-env/);
  } finally {
    await Deno.remove(f.root, { recursive: true });
  }
});
