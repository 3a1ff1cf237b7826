/**
 * Built-in acceptance commands. `@manifest`: results.json exists, parses within limits and names the node.
 * `@claim`: additionally recomputes the claimed score — from the artifact the manifest names, scored on the
 * frozen data set (never on data the artifact itself points at), or, on the mock path, from the node's
 * scripted behaviour as the plan defines it (never from a number the artifact carries) — and exits
 * non-zero when the claim is off by more than the tolerance. Only the exit code is a verdict; what this
 * prints is kept as evidence.
 *
 * Usage: check_claim.ts [--wait] <manifest|claim> <scope> <node> <direction> [tolerance]
 *          [--mock <json>] [--data <csv> <split> <data_hash> <split_hash>]
 *
 * @module
 */
import { stdinLines } from "./lib/protocol.ts";
import { type MockSpec, recompute } from "./lib/recompute.ts";
import "./real/recomputers.ts";
import type { DataRef } from "./real/locate.ts";

const MAX_MANIFEST = 1 << 20;

function readManifest(scope: string): Record<string, unknown> | string {
  let text: string;
  try {
    const st = Deno.lstatSync(`${scope}/results.json`);
    if (!st.isFile) return "results.json is not a regular file";
    if (st.size > MAX_MANIFEST) return `results.json is larger than ${MAX_MANIFEST} bytes`;
    text = Deno.readTextFileSync(`${scope}/results.json`);
  } catch {
    return `results.json missing in ${scope}`;
  }
  try {
    const v = JSON.parse(text);
    return v && typeof v === "object" && !Array.isArray(v) ? v : "results.json is not a JSON object";
  } catch (e) {
    return `results.json is not JSON: ${(e as Error).message}`;
  }
}

export async function main(argv: string[]): Promise<number> {
  let args = [...argv];
  if (args[0] === "--wait") {
    // Started ahead of the claim to hide start-up time: nothing is read until the engine says go.
    args = args.slice(1);
    if ((await stdinLines.next()) === null) return 3;
  }
  let mock: MockSpec | null = null;
  let data: DataRef | null = null;
  const mi = args.indexOf("--mock");
  if (mi >= 0) {
    mock = JSON.parse(args[mi + 1]!) as MockSpec;
    args.splice(mi, 2);
  }
  const di = args.indexOf("--data");
  if (di >= 0) {
    const [csv, split, data_hash, split_hash] = args.slice(di + 1, di + 5) as [
      string,
      string,
      string,
      string,
    ];
    data = { csv, split, data_hash, split_hash };
    args.splice(di, 5);
  }
  const [mode, scope, node, direction = "maximize", tol = "0.003"] = args;
  if (!mode || !scope || !node) {
    console.log("usage: check_claim <manifest|claim> <scope> <node> <direction> [tolerance]");
    return 2;
  }
  const m = readManifest(scope);
  if (typeof m === "string") {
    console.log(m);
    return 1;
  }
  if (m.node !== node) {
    console.log(`results.json names node ${JSON.stringify(m.node)}, expected ${JSON.stringify(node)}`);
    return 1;
  }
  if ("score" in m && (typeof m.score !== "number" || !Number.isFinite(m.score))) {
    console.log(`results.json claims a score that is not a finite number: ${JSON.stringify(m.score)}`);
    return 1;
  }
  if (mode === "manifest") {
    console.log(`manifest ok: ${node}`);
    return 0;
  }
  if (typeof m.score !== "number") {
    console.log("manifest ok, no score claimed");
    return 0;
  }
  if (typeof m.artifact !== "string" || m.artifact.includes("..") || m.artifact.startsWith("/")) {
    console.log(`claimed score ${m.score} names no artifact inside the scope to recompute it from`);
    return 1;
  }
  const dir = direction as "maximize" | "minimize";
  const got = await recompute(`${scope}/${m.artifact}`, { direction: dir, scope, mock, data });
  if (typeof got === "string") {
    console.log(`cannot recompute the claim from ${m.artifact}: ${got}`);
    return 1;
  }
  const diff = Math.abs(got - m.score);
  if (!(diff <= Number(tol))) {
    console.log(
      `claim does not reproduce: claimed ${m.score}, recomputed ${got} from ${m.artifact} (|Δ| ${diff} > ${tol})`,
    );
    return 1;
  }
  console.log(`claim reproduces: ${m.score} (recomputed ${got} from ${m.artifact})`);
  return 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
