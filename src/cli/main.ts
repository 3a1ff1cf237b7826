/**
 * The `arrow` command: dispatch to a subcommand, turning errors into exit codes (1 usage or input, 2
 * internal failure). Subcommands load lazily.
 *
 * @module
 */
import meta from "../../deno.json" with { type: "json" };
import { closest } from "../graph/closest.ts";
import { COMMANDS } from "./commands.ts";
import { InputError, UsageError } from "./errors.ts";

export const VERSION: string = meta.version;

export function usage(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    `arrow ${VERSION} — AutoResearch Overwatch: runs research task graphs and decides what is known from`,
    "world-state it checks itself (hashes, metric trajectories, exit codes, comparability tuples).",
    "",
    "Usage: arrow <command> [options]",
    "",
    "Commands:",
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    "",
    "Options:",
    "  -h, --help     Show help (also after a command: arrow run --help)",
    "  -V, --version  Print the version",
    "",
    "Exit codes: 0 the command completed (whatever a run's verdict), 1 usage or input error, 2 internal failure.",
  ].join("\n");
}

const WORKERS: Record<string, () => Promise<{ main(args: string[]): Promise<number | void> }>> = {
  mock_worker: () => import("../workers/mock_worker.ts").then((m) => ({ main: () => m.main() })),
  check_claim: () => import("../workers/check_claim.ts"),
  "real/make_data": () => import("../workers/real/make_data.ts"),
  "real/ols_baseline": () => import("../workers/real/ols_baseline.ts"),
  "real/gbdt_train": () => import("../workers/real/gbdt_train.ts"),
  "real/ckpt_eval": () => import("../workers/real/ckpt_eval.ts"),
  agent_worker: () => import("../workers/agent_worker.ts"),
  tree_harness: () => import("../tree/execute/harness/lane.ts"),
};

export async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  if (cmd === "-h" || cmd === "--help" || (cmd === "help" && rest.length === 0)) {
    console.log(usage());
    return 0;
  }
  if (cmd === "help") return await main([rest[0]!, "--help"]);
  if (cmd === "-V" || cmd === "--version") {
    console.log(`arrow ${VERSION}`);
    return 0;
  }
  if (cmd === "__worker") {
    const load = WORKERS[rest[0] ?? ""];
    if (!load) throw new UsageError(`arrow __worker: unknown worker "${rest[0]}"`);
    return Number(await (await load()).main(rest.slice(1)) ?? 0);
  }
  if (!cmd) throw new UsageError("arrow: missing command (see arrow --help)");
  const entry = COMMANDS.find((c) => c.name === cmd);
  if (!entry) {
    const hint = closest(cmd, COMMANDS.map((c) => c.name));
    throw new UsageError(
      `arrow: unknown command "${cmd}"${hint ? ` (did you mean "${hint}"?)` : ""} (see arrow --help)`,
    );
  }
  const mod = await entry.load();
  if (rest.includes("--help") || rest.includes("-h")) {
    console.log(mod.help);
    return 0;
  }
  return await mod.main(rest);
}

if (import.meta.main) {
  let code: number;
  try {
    code = await main(Deno.args);
  } catch (e) {
    if (e instanceof UsageError) {
      console.error(e.message);
      code = 1;
    } else if (e instanceof InputError) {
      console.error(e.message);
      for (const line of e.lines) console.error(line);
      code = 1;
    } else {
      console.error(`arrow: internal error: ${(e as Error)?.stack ?? e}`);
      code = 2;
    }
  }
  Deno.exit(code);
}
