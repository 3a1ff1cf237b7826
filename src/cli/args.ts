/**
 * Flag parsing for subcommands on top of node:util parseArgs, with one-line errors that name the
 * subcommand and point at its --help.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { UsageError } from "./errors.ts";
import { printable } from "./escape.ts";

export type FlagSpec = Record<string, { type: "string" | "boolean"; short?: string; multiple?: boolean }>;

export interface Parsed {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

export function parse(cmd: string, argv: string[], flags: FlagSpec, maxPositionals: number): Parsed {
  let out: Parsed;
  // `--cycles -1` would otherwise read "-1" as an option and fail with a vaguer message than `--cycles 0`
  // gets: a number-like word after a value flag is that flag's value, checked (and refused) like any other.
  const args: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!, next = argv[i + 1];
    const takesValue = a.startsWith("--") && flags[a.slice(2)]?.type === "string";
    if (takesValue && next !== undefined && /^-\d/.test(next)) {
      args.push(`${a}=${next}`);
      i++;
    } else args.push(a);
  }
  try {
    out = parseArgs({
      args,
      options: { ...flags, help: { type: "boolean", short: "h" } },
      allowPositionals: true,
      strict: true,
    }) as Parsed;
  } catch (e) {
    const err = e as Error & { code?: string };
    const opt = err.message.match(/'(-{1,2}[^' ]+)/)?.[1];
    const what = err.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION"
      ? `unknown option ${opt}`
      : err.code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE"
      ? `option ${opt?.split(" ")[0] ?? ""} ${
        /argument missing/.test(err.message) ? "needs a value" : "has a bad value"
      }`
      : err.message.split(".")[0]!;
    throw new UsageError(`arrow ${cmd}: ${what} (see arrow ${cmd} --help)`);
  }
  if (!out.values.help && out.positionals.length > maxPositionals) {
    throw new UsageError(
      `arrow ${cmd}: unexpected argument "${out.positionals[maxPositionals]}" (see arrow ${cmd} --help)`,
    );
  }
  return out;
}

export function intFlag(
  cmd: string,
  name: string,
  v: unknown,
  min: number,
  fallback: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  if (v === undefined) return fallback;
  const n = Number(v);
  if (typeof v !== "string" || !/^\d+$/.test(v) || n < min || n > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `≥ ${min}` : `from ${min} to ${max}`;
    throw new UsageError(
      `arrow ${cmd}: Cannot use --${name} ${printable(String(v))}: a whole number ${range}`,
    );
  }
  return n;
}
