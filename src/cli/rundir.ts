/**
 * Finding and reading a run directory for the commands that work on existing runs.
 *
 * @module
 */
import { type RunState, STATE_VERSION } from "../model/state.ts";
import { InputError } from "./errors.ts";

/** A run directory from a path, a run id under the runs directory, or "latest". */
export function resolveRunDir(arg: string, runsDir = "runs"): string {
  const isDir = (p: string) => {
    try {
      return Deno.statSync(p).isDirectory;
    } catch {
      return false;
    }
  };
  if (arg === "latest") {
    const runs = isDir(runsDir)
      ? [...Deno.readDirSync(runsDir)].filter((d) => d.isDirectory).map((d) => d.name).sort()
      : [];
    if (!runs.length) throw new InputError(`arrow: no runs in ${runsDir}`);
    return Deno.realPathSync(`${runsDir}/${runs.at(-1)}`);
  }
  for (const p of [arg, `${runsDir}/${arg}`]) {
    if (isDir(p) && (exists(`${p}/replay.jsonl`) || exists(`${p}/state.json`))) return Deno.realPathSync(p);
  }
  if (isDir(arg)) {
    throw new InputError(`arrow: ${arg} is not a run directory (no replay.jsonl or state.json)`);
  }
  throw new InputError(`arrow: no run "${arg}" (looked for a directory and in ${runsDir}/)`);
}

export function exists(p: string): boolean {
  try {
    Deno.statSync(p);
    return true;
  } catch {
    return false;
  }
}

/** Reads state.json, explaining how to recover when it is missing or corrupt. */
export function loadRunState(runDir: string): RunState {
  let text: string;
  try {
    text = Deno.readTextFileSync(`${runDir}/state.json`);
  } catch {
    throw new InputError(
      `arrow: ${runDir}/state.json is missing`,
      [`recover it from the black box with: arrow resume ${runDir} (rebuilds the state from replay.jsonl)`],
    );
  }
  try {
    const s = JSON.parse(text) as RunState;
    if (s?.v !== STATE_VERSION || typeof s.tick !== "number" || !s.plan || !s.nodes) {
      throw new SyntaxError("not a run state");
    }
    return s;
  } catch (e) {
    throw new InputError(
      `arrow: ${runDir}/state.json is corrupt (${(e as Error).message})`,
      [`recover it from the black box with: arrow resume ${runDir} (rebuilds the state from replay.jsonl)`],
    );
  }
}
