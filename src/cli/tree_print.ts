/**
 * What `arrow tree` prints for people at the terminal: a line or two per step as the run goes, and its
 * outcome at the end. Text from the user's CSV and from an LLM is escaped, and key-like strings redacted.
 *
 * @module
 */
import { Redactor } from "../llm/redact.ts";
import type { Incident } from "../model/state.ts";
import { narrate } from "../record/narrate.ts";
import type { summarize, TreeEvent, TreeState } from "../tree/mod.ts";
import { printable } from "./escape.ts";

/**
 * What this command prints, with key-like strings redacted by pattern (text from the user's CSV and from an
 * LLM reaches the console through hypotheses, notes and lessons, as it reaches the report).
 */
const KEYS = new Redactor([]);
export const say = (text: string) => console.log(KEYS.text(text));
export const warn = (text: string) => console.error(KEYS.text(text));

const f4 = (x: number | null | undefined) => (x === null || x === undefined ? "—" : x.toFixed(4));

/** One line per step for people watching the terminal (text from LLMs and CSVs escaped). */
export function describe(s: TreeState, ev: TreeEvent, incidents: Incident[]): string[] {
  const out = incidents.map((i) => `  ! ${printable(narrate(i))}`);
  switch (ev.e) {
    case "proposed":
      // Why an ideator's replies gave nothing (or less) is said here, not only in the report.
      return [
        `cycle ${s.cycle}: expand ${ev.parent} → ${ev.hypotheses.length} hypothesis(es)`,
        ...ev.problems.map((p) => `  ! ideator: ${printable(p, { max: 300 })}`),
        ...out,
      ];
    case "executed":
      return [
        ...ev.results.map((r) => {
          const n = s.nodes[r.node]!;
          const what = n.insight ? ` (${n.insight.outcome})` : "";
          return `  ${n.id} ${n.status}: dev ${f4(n.dev?.mean)}${what} ${
            printable(n.hypothesis?.text ?? "the starting artifact", { max: 100 })
          }`;
        }),
        ...out,
      ];
    case "gated": {
      const n = s.nodes[ev.node]!;
      return [
        `  gate ${n.id}: held-out ${
          f4(n.heldout)
        } → ${n.gate} (${s.heldout.used}/${s.heldout.budget} queries)`,
        ...out,
      ];
    }
    case "verdict":
      return [`final test: start ${f4(s.final?.start)}, best ${f4(s.final?.best)}`, ...out];
    default:
      return out;
  }
}

/** The run's outcome: verdict, scores, references, flags and where its files are. */
export function printSummary(s: TreeState, sum: ReturnType<typeof summarize>, wallMs: number): void {
  const gain = (a: number | null, b: number | null) =>
    a === null || b === null
      ? "—"
      : `${(s.config.direction === "maximize" ? b - a : a - b) >= 0 ? "+" : ""}${
        (s.config.direction === "maximize" ? b - a : a - b).toFixed(4)
      }`;
  say("");
  say(
    `${s.verdict}: ${sum.node_count} nodes in ${sum.cycles} cycles, ${sum.heldout_queries}/${s.heldout.budget} held-out queries, ${
      (wallMs / 1000).toFixed(1)
    } s`,
  );
  say(
    `  start ${s.order[0]}: dev ${f4(sum.start.dev)}  held-out ${f4(sum.start.heldout)}  test ${
      f4(sum.start.test)
    }`,
  );
  say(
    `  best  ${sum.best.id}: dev ${f4(sum.best.dev)}  held-out ${f4(sum.best.heldout)}  test ${
      f4(sum.best.test)
    }`,
  );
  say(
    `  gain: held-out ${gain(sum.start.heldout, sum.best.heldout)}, final test ${
      gain(sum.start.test, sum.best.test)
    } (${s.config.metric})`,
  );
  if (sum.best.hypothesis) say(`  best hypothesis: ${printable(sum.best.hypothesis, { max: 200 })}`);
  const r = sum.references;
  say(
    `  final test (${s.config.metric}): start ${f4(r.start.score)}, admitted dev-only ${
      f4(r.admitted.score)
    }, ` +
      `refit on dev+held-out ${f4(r.admitted_refit?.score)}, strong default ${
        f4(r.strong_default?.score)
      }, ` +
      `trivial ${f4(r.trivial?.score)}`,
  );
  for (const f of sum.flags) say(`  ! ${printable(f)}`);
  for (const w of sum.warnings) say(`  warning: ${printable(w)}`);
  for (const d of sum.dropped_columns) say(`  column ${printable(d.column)} left out: ${d.reason}`);
  if (sum.model) {
    say(`  model: ${printable(sum.model)} (arrow tree predict ${printable(sum.run_dir)} new.csv)`);
  }
  say(`  splits: ${printable(sum.splits)}`);
  if (sum.incidents.length) say(`  incidents: ${sum.incidents.length} (see incidents.jsonl)`);
  say(`  report: ${printable(sum.run_dir)}/report/report.md`);
}
