/**
 * Semantic checks on how nodes run and are judged: a `@claim` needs something that can recompute the claim,
 * curves and paces must make sense, the declared evaluator may only use known placeholders.
 *
 * @module
 */
import { type Path, type Pos, quote } from "./check.ts";
import { durationMs } from "./resolve.ts";
import type { PlanFile } from "./types.ts";
import type { Finding } from "./validate.ts";
import { validateSlurm } from "./validate_slurm.ts";

/** Placeholders `protocol.evaluate` may use. */
export const EVALUATE_VARS = ["artifact", "scope", "data", "node"] as const;

const MIN_OBSERVE_MS = 50;
const MAX_OBSERVE_MS = 24 * 3_600_000;

export function validateWorkers(
  plan: Partial<PlanFile>,
  pos: (p: Path) => Pos,
  keyPos: (p: Path) => Pos,
): { errors: Finding[]; warnings: Finding[] } {
  const errors: Finding[] = [];
  const warnings: Finding[] = [];
  const err = (p: Pos, message: string) => errors.push({ pos: p, message });
  const evaluate = plan.protocol?.evaluate;

  (evaluate ?? []).forEach((arg, i) => {
    if (typeof arg !== "string") return;
    for (const m of arg.matchAll(/\{([^}]*)\}/g)) {
      if (!(EVALUATE_VARS as readonly string[]).includes(m[1]!)) {
        err(
          pos(["protocol", "evaluate", i]),
          `unknown placeholder ${quote(`{${m[1]}}`)} in protocol.evaluate (known: ${
            EVALUATE_VARS.map((v) => `{${v}}`).join(" ")
          })`,
        );
      }
    }
  });

  (plan.nodes ?? []).forEach((n, i) => {
    if (!n || typeof n !== "object") return;
    const w = n.worker;
    if (n.acceptance?.[0] === "@claim" && (w?.type === "command" || w?.type === "agent") && !evaluate) {
      err(
        pos(["nodes", i, "acceptance", 0]),
        `node "${n.id}" uses @claim, but nothing can recompute the claim of a ${w.type} worker's artifact: ` +
          `declare protocol.evaluate (an evaluator argv that prints the recomputed score), or use @manifest`,
      );
    }
    const prof = n.mock?.profile;
    if (prof?.shape === "curve" && !prof.values) {
      err(keyPos(["nodes", i, "mock", "profile", "shape"]), `profile shape curve of "${n.id}" needs values`);
    }
    if (prof && prof.shape !== "curve" && prof.values) {
      err(
        keyPos(["nodes", i, "mock", "profile", "values"]),
        `profile values only apply to shape curve ("${n.id}" has shape ${prof.shape})`,
      );
    }
    if (typeof n.observe_every === "string") {
      const ms = durationMs(n.observe_every);
      if (ms !== undefined && (ms < MIN_OBSERVE_MS || ms > MAX_OBSERVE_MS)) {
        err(
          pos(["nodes", i, "observe_every"]),
          `observe_every ${n.observe_every} of "${n.id}" must lie between ${MIN_OBSERVE_MS}ms and 24h`,
        );
      }
    }
    if (typeof n.budget?.wall === "string" && !durationMs(n.budget.wall)) {
      err(pos(["nodes", i, "budget", "wall"]), `budget.wall of "${n.id}" must be longer than 0`);
    }
    if (n.slurm && plan.resources?.runtime !== "slurm") {
      warnings.push({
        pos: keyPos(["nodes", i, "slurm"]),
        message: `slurm options of "${n.id}" apply only with resources.runtime: slurm (or --runtime slurm)`,
      });
    }
  });
  errors.push(...validateSlurm(plan, pos));
  return { errors, warnings };
}
