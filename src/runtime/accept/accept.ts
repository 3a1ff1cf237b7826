/**
 * Runs a node's acceptance command. Only its exit code decides; stdout and stderr are captured (bounded)
 * as evidence and never parsed — except by `@claim` itself, whose recomputation (built-in, or the plan's
 * declared evaluator) is Arrow's own check, not the worker's word. A command that outlives its time limit
 * is killed and counts as exit 124.
 *
 * @module
 */
import type { PlanNode } from "../../graph/types.ts";
import type { RunState } from "../../model/state.ts";
import { ACCEPT_EPS } from "../../thresholds.ts";
import { type AcceptanceCommand, acceptanceCommand } from "./accept_command.ts";
import { type Boxes, scopeDir } from "../backend/launch.ts";
import { readManifest } from "../scope/manifest.ts";
import { signalGroup } from "../proc/proc.ts";

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
  #spawnError: string | null = null;
  #ahead = false;

  #cmd: AcceptanceCommand | null = null;

  private constructor(readonly make: (ahead: boolean) => AcceptanceCommand, readonly cwd: string) {}

  /** The command, made when it first runs: an evaluator's argv names the artifact the claim names. */
  get cmd(): AcceptanceCommand {
    return this.#cmd ??= this.make(false);
  }

  static prepare(
    state: RunState,
    node: PlanNode,
    runDir: string,
    box: Boxes,
    ahead: boolean,
  ): Acceptance {
    const a = new Acceptance((w) => acceptanceCommand(state, node, runDir, box, w), scopeDir(runDir, node));
    const builtin = node.acceptance[0] === "@manifest" || node.acceptance[0] === "@claim";
    if (ahead && builtin) {
      const cmd = a.make(true);
      if (cmd.kind === "builtin") {
        a.#cmd = cmd;
        a.#ahead = true;
        a.#spawn(true);
      }
    }
    return a;
  }

  #spawn(piped: boolean): void {
    if (this.cmd.refuse) {
      this.#spawnError = this.cmd.refuse;
      return;
    }
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
    const argv = this.cmd.argv;
    if (!child) return { argv, code: 127, stdout: "", stderr: this.#spawnError ?? "" };
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
    const code = first === "timeout" ? 124 : status.code;
    return this.cmd.kind === "evaluator" ? this.#judge(code, stdout, stderr) : { argv, code, stdout, stderr };
  }

  /** The declared evaluator printed its recomputation: compare it with the claim. */
  #judge(code: number, stdout: string, stderr: string): AcceptanceRun {
    const argv = this.cmd.argv;
    const shown = `evaluator: ${this.cmd.evaluator!.join(" ")}\n`;
    if (code !== 0) {
      return { argv, code: 1, stdout: `${shown}the evaluator exited ${code}\n${stdout}`, stderr };
    }
    const last = stdout.trim().split("\n").at(-1)?.trim() ?? "";
    const got = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(last) ? Number(last) : NaN;
    if (!Number.isFinite(got)) {
      return {
        argv,
        code: 1,
        stdout: `${shown}its last line is not a score: ${JSON.stringify(last.slice(0, 80))}\n`,
        stderr,
      };
    }
    const { manifest } = readManifest(this.cwd);
    const claimed = manifest?.score;
    if (typeof claimed !== "number") {
      return { argv, code: 0, stdout: `${shown}recomputed ${got}; no score claimed\n`, stderr };
    }
    const diff = Math.abs(got - claimed);
    if (diff > ACCEPT_EPS) {
      return {
        argv,
        code: 1,
        stdout:
          `${shown}claim does not reproduce: claimed ${claimed}, recomputed ${got} (|Δ| ${diff} > ${ACCEPT_EPS})\n`,
        stderr,
      };
    }
    return { argv, code: 0, stdout: `${shown}claim reproduces: ${claimed} (recomputed ${got})\n`, stderr };
  }

  /** The claim is refused without running the check (exit 1, `why` as its stderr). */
  async refuse(why: string): Promise<AcceptanceRun> {
    await this.cancel();
    return { argv: this.cmd.argv, code: 1, stdout: "", stderr: why };
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
