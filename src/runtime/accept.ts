/**
 * Runs a node's acceptance command. Only its exit code decides; stdout and stderr are captured (bounded)
 * as evidence and never parsed. A command that outlives its time limit is killed and counts as exit 124.
 *
 * @module
 */
import type { PlanNode } from "../graph/types.ts";
import type { Manifest, RunState } from "../model/state.ts";
import { acceptanceCommand, scopeDir } from "./launch.ts";
import { signalGroup } from "./proc.ts";

const LIMIT = 64 * 1024;

async function collect(stream: ReadableStream<Uint8Array>): Promise<string> {
  const dec = new TextDecoder();
  let out = "";
  for await (const chunk of stream) {
    if (out.length < LIMIT) out += dec.decode(chunk, { stream: true });
  }
  return out.length > LIMIT ? out.slice(0, LIMIT) : out;
}

export interface AcceptanceRun {
  argv: string[];
  code: number;
  stdout: string;
  stderr: string;
}

export async function runAcceptance(
  state: RunState,
  node: PlanNode,
  runDir: string,
  bwrap: string | null,
  timeoutMs = 120_000,
): Promise<AcceptanceRun> {
  const c = acceptanceCommand(state, node, runDir, bwrap);
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(c.cmd, {
      args: c.args,
      env: { RUST_BACKTRACE: "0", NO_COLOR: "1", ...c.env },
      clearEnv: true,
      cwd: scopeDir(runDir, node),
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      detached: true,
    }).spawn();
  } catch (e) {
    return {
      argv: c.argv,
      code: 127,
      stdout: "",
      stderr: `cannot start acceptance: ${(e as Error).message}`,
    };
  }
  const out = collect(child.stdout);
  const err = collect(child.stderr);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<"timeout">((r) => (timer = setTimeout(() => r("timeout"), timeoutMs)));
  const first = await Promise.race([child.status, timedOut]);
  clearTimeout(timer);
  if (first === "timeout") signalGroup(child.pid, "SIGKILL");
  const status = await child.status;
  const [stdout, stderr] = await Promise.all([out, err]);
  return { argv: c.argv, code: first === "timeout" ? 124 : status.code, stdout, stderr };
}

/** Reads a scope's results.json. */
export function readManifest(scope: string): { manifest: Manifest | null; error?: string } {
  let text: string;
  try {
    text = Deno.readTextFileSync(`${scope}/results.json`);
  } catch {
    return { manifest: null, error: "results.json missing" };
  }
  try {
    const m = JSON.parse(text);
    if (!m || typeof m !== "object" || Array.isArray(m)) {
      return { manifest: null, error: "results.json is not an object" };
    }
    if (typeof m.node !== "string") return { manifest: null, error: "results.json has no node field" };
    return { manifest: m as Manifest };
  } catch (e) {
    return { manifest: null, error: `results.json is not JSON: ${(e as Error).message}` };
  }
}
