/**
 * `arrow scenarios`: the built-in scenarios, one line each.
 *
 * @module
 */
import { parse } from "./args.ts";
import { builtinNames, resolveBuiltin } from "./catalog.ts";

export const help = `Usage: arrow scenarios [--json]

Lists the built-in scenarios (a plan plus a fault script each) with what each one shows and the verdict
it ends with. Run one with: arrow run --scenario <name>

Options:
  --json    One JSON object per scenario: name, description, plan, expect, faults
  -h, --help`;

export function main(argv: string[]): Promise<number> {
  const { values } = parse("scenarios", argv, { json: { type: "boolean" } }, 0);
  const all = builtinNames().map(resolveBuiltin);
  if (values.json) {
    for (const s of all) {
      console.log(
        JSON.stringify({
          name: s.name,
          description: s.description,
          expect: s.expect?.verdict ?? null,
          faults: s.faults.map((f) => f.kind),
        }),
      );
    }
    return Promise.resolve(0);
  }
  const width = Math.max(...all.map((s) => s.name.length));
  for (const s of all) {
    console.log(`${s.name.padEnd(width)}  ${s.description}${s.expect ? ` → ${s.expect.verdict}` : ""}`);
  }
  return Promise.resolve(0);
}
