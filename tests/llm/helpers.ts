/**
 * A throw-away run directory for agent tests: N1 (a data node with data.csv and split.json) feeding N3 and
 * N4, and an AgentConfig for N3 that runs commands with no sandbox prefix (bash directly, in the scope).
 *
 * @module
 */
import type { AgentConfig } from "../../src/llm/config.ts";
import { LlmClient } from "../../src/llm/client.ts";

export const KEY = "sk-or-v1-test0123456789abcdef";

const FIXED = {
  kind: "fast",
  sources: {},
  protocol: { version: "p1-dev-r2", metric: "dev_r2", direction: "maximize" },
  faults: [],
  attempt: 1,
  lap: 1,
  resume: null,
  sandbox: [],
} as const satisfies Partial<AgentConfig>;

export interface FakeRun extends AsyncDisposable {
  dir: string;
  scope: string;
  input: string;
  cfg(over?: Partial<AgentConfig>): AgentConfig;
  /** The config of N4 (role train), fed by N1 like N3. */
  n4(over?: Partial<AgentConfig>): AgentConfig;
}

export async function fakeRun(): Promise<FakeRun> {
  const dir = await Deno.makeTempDir({ prefix: "arrow-llm-" });
  const input = `${dir}/nodes/N1`;
  const scope = `${dir}/nodes/N3`;
  await Deno.mkdir(input, { recursive: true });
  await Deno.mkdir(scope, { recursive: true });
  await Deno.mkdir(`${dir}/nodes/N4`, { recursive: true });
  await Deno.writeTextFile(`${input}/data.csv`, "x,y\n1,2\n2,4.1\n3,5.9\n");
  await Deno.writeTextFile(`${input}/split.json`, '{"train": [0, 1], "dev": [2]}\n');
  return {
    dir,
    scope,
    input,
    cfg: (over = {}) => ({
      ...FIXED,
      node: "N3",
      role: "baseline",
      scope,
      nodes: `${dir}/nodes`,
      inputs: { N1: { scope: input, role: "data" } },
      args: { prompt: "Fit the OLS baseline on the data set and report dev_r2." },
      usage: `${dir}/.arrow/usage/N3.jsonl`,
      transcript: `${dir}/logs/agent/N3.jsonl`,
      ...over,
    }),
    n4: (over = {}) => ({
      ...FIXED,
      node: "N4",
      role: "train",
      scope: `${dir}/nodes/N4`,
      nodes: `${dir}/nodes`,
      inputs: { N1: { scope: input, role: "data" } },
      args: { prompt: "Fit gradient-boosted trees on the data set and report dev_r2." },
      usage: `${dir}/.arrow/usage/N4.jsonl`,
      transcript: `${dir}/logs/agent/N4.jsonl`,
      ...over,
    }),
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  };
}

/** A client for the scripted server that never sleeps between retries. */
export function testClient(url: string): LlmClient {
  return new LlmClient({ baseUrl: url, apiKey: KEY, seed: "test", sleep: () => Promise.resolve() });
}

export function jsonLines(path: string): Record<string, unknown>[] {
  try {
    return Deno.readTextFileSync(path).split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return [];
    throw e;
  }
}

export async function sha256(path: string): Promise<string> {
  const d = await crypto.subtle.digest("SHA-256", await Deno.readFile(path));
  return [...new Uint8Array(d)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** True once `pid` is gone or a zombie (checked until `ms` pass: a killed process takes a moment to die). */
export async function gone(pid: number, ms = 2000): Promise<boolean> {
  const deadline = performance.now() + ms;
  for (;;) {
    let state: string | null = null;
    try {
      const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
      state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    } catch {
      return true;
    }
    if (state === "Z") return true;
    if (performance.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 10));
  }
}
