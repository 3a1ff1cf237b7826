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

/**
 * One acceptance check of one claim. Built-in checkers are started when the attempt starts and wait on
 * stdin, so the claim is checked without paying process start-up; any other argv starts at the claim.
 */
export class Acceptance {
  #child: Deno.ChildProcess | null = null;
  #out: Promise<string> | null = null;
  #err: Promise<string> | null = null;
  #argv: string[];
  #spawnError: string | null = null;
  #ahead = false;

  private constructor(readonly cmd: ReturnType<typeof acceptanceCommand>, readonly cwd: string) {
    this.#argv = cmd.argv;
  }

  static prepare(
    state: RunState,
    node: PlanNode,
    runDir: string,
    bwrap: string | null,
    ahead: boolean,
  ): Acceptance {
    const builtin = node.acceptance[0] === "@manifest" || node.acceptance[0] === "@claim";
    const a = new Acceptance(
      acceptanceCommand(state, node, runDir, bwrap, ahead && builtin),
      scopeDir(runDir, node),
    );
    if (ahead && builtin) {
      a.#ahead = true;
      a.#spawn(true);
    }
    return a;
  }

  #spawn(piped: boolean): void {
    try {
      this.#child = new Deno.Command(this.cmd.cmd, {
        args: this.cmd.args,
        env: { RUST_BACKTRACE: "0", NO_COLOR: "1", ...this.cmd.env },
        clearEnv: true,
        cwd: this.cwd,
        stdin: piped ? "piped" : "null",
        stdout: "piped",
        stderr: "piped",
        detached: true,
      }).spawn();
      this.#out = collect(this.#child.stdout);
      this.#err = collect(this.#child.stderr);
    } catch (e) {
      this.#spawnError = `cannot start acceptance: ${(e as Error).message}`;
    }
  }

  async run(timeoutMs = 120_000): Promise<AcceptanceRun> {
    if (!this.#child && !this.#spawnError) this.#spawn(false);
    const child = this.#child;
    if (!child) return { argv: this.#argv, code: 127, stdout: "", stderr: this.#spawnError ?? "" };
    if (this.#ahead) {
      const w = child.stdin.getWriter();
      await w.write(new TextEncoder().encode("go\n")).catch(() => {});
      await w.close().catch(() => {});
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<"timeout">((r) => (timer = setTimeout(() => r("timeout"), timeoutMs)));
    const first = await Promise.race([child.status, timedOut]);
    clearTimeout(timer);
    if (first === "timeout") signalGroup(child.pid, "SIGKILL");
    const status = await child.status;
    const [stdout, stderr] = await Promise.all([this.#out!, this.#err!]);
    this.#child = null;
    return { argv: this.#argv, code: first === "timeout" ? 124 : status.code, stdout, stderr };
  }

  /** Stops a checker that was started ahead and will not be needed. */
  async cancel(): Promise<void> {
    const child = this.#child;
    if (!child) return;
    this.#child = null;
    signalGroup(child.pid, "SIGKILL");
    await child.stdin.close().catch(() => {});
    await child.status;
    await Promise.all([this.#out, this.#err]);
  }
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
