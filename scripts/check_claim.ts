/**
 * Built-in acceptance commands. `@manifest`: results.json exists, parses and names the node. `@claim`:
 * additionally recomputes the claimed score from the artifact the manifest names and exits non-zero when it
 * does not reproduce. Only the exit code is a verdict; what this prints is kept as evidence.
 *
 * Usage: check_claim.ts [--wait] <manifest|claim> <scope> <node> <direction> [tolerance]
 *
 * @module
 */
import { readJson } from "./lib/files.ts";
import { stdinLines } from "./lib/protocol.ts";
import { recompute } from "./lib/recompute.ts";
import "./real/recomputers.ts";

export async function main(argv: string[]): Promise<number> {
  let args = argv;
  if (args[0] === "--wait") {
    // Started ahead of the claim to hide start-up time: nothing is read until the engine says go.
    args = args.slice(1);
    if ((await stdinLines.next()) === null) return 3;
  }
  const [mode, scope, node, direction = "maximize", tol = "1e-6"] = args;
  if (!mode || !scope || !node) {
    console.log("usage: check_claim <manifest|claim> <scope> <node> <direction> [tolerance]");
    return 2;
  }
  const m = readJson<Record<string, unknown>>(`${scope}/results.json`);
  if (!m) {
    console.log(`results.json missing or not JSON in ${scope}`);
    return 1;
  }
  if (m.node !== node) {
    console.log(`results.json names node ${JSON.stringify(m.node)}, expected ${JSON.stringify(node)}`);
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
  const got = await recompute(`${scope}/${m.artifact}`, direction as "maximize" | "minimize", scope);
  if (typeof got === "string") {
    console.log(`cannot recompute the claim from ${m.artifact}: ${got}`);
    return 1;
  }
  const diff = Math.abs(got - m.score);
  if (diff > Number(tol)) {
    console.log(
      `claim does not reproduce: claimed ${m.score}, recomputed ${got} from ${m.artifact} (|Δ| ${diff} > ${tol})`,
    );
    return 1;
  }
  console.log(`claim reproduces: ${m.score} (recomputed ${got} from ${m.artifact})`);
  return 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
