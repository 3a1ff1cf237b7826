/**
 * Per-node Slurm options of a plan (partition, time, mem, account, gres, cpus, qos): their parsers, which
 * normalise each value to the form sbatch accepts (so what was validated is exactly what is submitted), and
 * the plan check that places every problem at file:line:col. Pure: the plan loader and the Slurm backend
 * (runtime/slurm/options.ts re-exports these) share one definition.
 *
 * @module
 */
import type { Path, Pos } from "./check.ts";
import type { PlanFile, SlurmOptions } from "./types.ts";
import type { Finding } from "./validate.ts";

export interface OptionProblem {
  /** The option's key in the plan ("time"), or "" for the options object itself. */
  field: string;
  message: string;
}

export const OPTION_KEYS = ["partition", "time", "mem", "account", "gres", "cpus", "qos"] as const;

const NAME = /^[A-Za-z0-9_][A-Za-z0-9_.\-]*$/;

function show(v: unknown): string {
  const s = typeof v === "string" ? JSON.stringify(v) : String(v);
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

/** Slurm time limit: minutes, M:S, H:M:S, D-H, D-H:M, D-H:M:S, or UNLIMITED/INFINITE. Returns minutes. */
export function parseTimeLimit(v: unknown): { value: string; minutes: number } | { error: string } {
  const hint = 'expected minutes ("90"), "HH:MM:SS", "D-HH:MM:SS" or "UNLIMITED"';
  if (typeof v === "number") {
    if (Number.isInteger(v) && v > 0) return { value: String(v), minutes: v };
    return { error: `Cannot use time ${show(v)}: ${hint}` };
  }
  if (typeof v !== "string") return { error: `Cannot use time ${show(v)}: ${hint}` };
  const s = v.trim();
  if (/^(UNLIMITED|INFINITE)$/i.test(s)) return { value: "UNLIMITED", minutes: Infinity };
  const m = s.match(/^(?:(\d+)-)?(\d+)(?::(\d+))?(?::(\d+))?$/);
  if (!m) return { error: `Cannot use time ${show(v)}: ${hint}` };
  const [, d, a, b, c] = m;
  const n = (x: string | undefined) => (x === undefined ? 0 : Number(x));
  let seconds: number;
  if (d !== undefined) {
    // D-H, D-H:M, D-H:M:S
    if (n(b) > 59 || n(c) > 59) return { error: `Cannot use time ${show(v)}: minutes and seconds go to 59` };
    seconds = n(d) * 86400 + n(a) * 3600 + n(b) * 60 + n(c);
  } else if (c !== undefined) {
    if (n(b) > 59 || n(c) > 59) return { error: `Cannot use time ${show(v)}: minutes and seconds go to 59` };
    seconds = n(a) * 3600 + n(b) * 60 + n(c);
  } else if (b !== undefined) {
    if (n(b) > 59) return { error: `Cannot use time ${show(v)}: seconds go to 59` };
    seconds = n(a) * 60 + n(b);
  } else seconds = n(a) * 60;
  if (seconds <= 0) return { error: `Cannot use time ${show(v)}: a time limit must be positive (${hint})` };
  // Slurm rounds every limit up to whole minutes.
  return { value: s, minutes: Math.ceil(seconds / 60) };
}

/** Memory per node: an integer with an optional unit K, M (default), G or T. Returns megabytes. */
export function parseMem(v: unknown): { value: string; mb: number } | { error: string } {
  const hint = 'expected an amount like "4G", "512M" or 2048 (megabytes)';
  if (typeof v === "number") {
    if (Number.isInteger(v) && v > 0) return { value: `${v}M`, mb: v };
    return { error: `Cannot use mem ${show(v)}: ${hint}` };
  }
  const m = typeof v === "string" ? v.trim().match(/^(\d+)\s*([KMGT])?B?$/i) : null;
  if (!m) return { error: `Cannot use mem ${show(v)}: ${hint}` };
  const unit = (m[2] ?? "M").toUpperCase();
  const mb = Number(m[1]) * { K: 1 / 1024, M: 1, G: 1024, T: 1024 * 1024 }[unit as "K" | "M" | "G" | "T"];
  if (mb <= 0) return { error: `Cannot use mem ${show(v)}: it must be more than zero` };
  return { value: `${m[1]}${unit}`, mb };
}

/** Generic resources: comma-separated `name[:type][:count]`, e.g. "gpu:1" or "gpu:a100:2". */
export function parseGres(v: unknown): { value: string } | { error: string } {
  const hint = 'expected "name[:type][:count]" items separated by commas, e.g. "gpu:1" or "gpu:a100:2"';
  if (typeof v !== "string" || !v.trim()) return { error: `Cannot use gres ${show(v)}: ${hint}` };
  const items = v.trim().split(",");
  for (const item of items) {
    const parts = item.trim().split(":");
    const [name, ...rest] = parts;
    if (!name || !NAME.test(name) || parts.length > 3) {
      return { error: `Cannot use gres ${show(v)}: ${hint}` };
    }
    const last = rest.at(-1);
    if (rest.length === 2 && !/^\d+$/.test(last ?? "")) {
      return { error: `Cannot use gres ${show(v)}: the count in "${item}" must be a whole number` };
    }
    if (rest.some((p) => !NAME.test(p))) return { error: `Cannot use gres ${show(v)}: ${hint}` };
    if (last !== undefined && /^\d+$/.test(last) && Number(last) === 0) {
      return { error: `Cannot use gres ${show(v)}: the count in "${item}" must be at least 1` };
    }
  }
  return { value: items.map((i) => i.trim()).join(",") };
}

function checkName(field: string, v: unknown, list: boolean): { value: string } | { error: string } {
  const ok = typeof v === "string" && (list ? v.split(",").every((p) => NAME.test(p)) : NAME.test(v));
  if (ok) return { value: v as string };
  const what = list ? "a name or comma-separated names" : "a name";
  return { error: `Cannot use ${field} ${show(v)}: expected ${what} of letters, digits, "_", "." or "-"` };
}

/**
 * Checks a plan's Slurm options object. Unknown keys are problems (a typo must not silently drop a limit).
 * Returns the normalised options and every problem found, in key order.
 */
export function checkSlurmOptions(raw: unknown): { options: SlurmOptions; problems: OptionProblem[] } {
  const options: SlurmOptions = {};
  const problems: OptionProblem[] = [];
  if (raw === undefined || raw === null) return { options, problems };
  if (typeof raw !== "object" || Array.isArray(raw)) {
    return {
      options,
      problems: [{ field: "", message: `Cannot use slurm options ${show(raw)}: expected a mapping` }],
    };
  }
  for (const [key, v] of Object.entries(raw as Record<string, unknown>)) {
    let r: { value: string } | { error: string };
    switch (key) {
      case "partition":
        r = checkName(key, v, true);
        if ("value" in r) options.partition = r.value;
        break;
      case "account":
      case "qos":
        r = checkName(key, v, false);
        if ("value" in r) options[key] = r.value;
        break;
      case "time":
        r = parseTimeLimit(v);
        if ("value" in r) options.time = r.value;
        break;
      case "mem":
        r = parseMem(v);
        if ("value" in r) options.mem = r.value;
        break;
      case "gres":
        r = parseGres(v);
        if ("value" in r) options.gres = r.value;
        break;
      case "cpus":
        if (typeof v === "number" && Number.isInteger(v) && v >= 1 && v <= 100_000) {
          options.cpus = v;
          r = { value: String(v) };
        } else r = { error: `Cannot use cpus ${show(v)}: expected a whole number of CPUs, at least 1` };
        break;
      default:
        r = { error: `Cannot use slurm option "${key}": unknown (known: ${OPTION_KEYS.join(", ")})` };
    }
    if ("error" in r) problems.push({ field: key, message: r.error });
  }
  return { options, problems };
}

/** Fields the plan schema types as strings: their values are checked here, their types by the schema. */
const TEXT_FIELDS = new Set(["partition", "time", "mem", "account", "gres"]);

/**
 * Checks every node's `slurm:` block beyond its types (those the schema checks): time limits, memory,
 * generic resources and names in the forms sbatch accepts, each problem at the value's position.
 */
export function validateSlurm(plan: Partial<PlanFile>, pos: (p: Path) => Pos): Finding[] {
  const out: Finding[] = [];
  (plan.nodes ?? []).forEach((n, i) => {
    const raw = n && typeof n === "object" ? n.slurm : undefined;
    if (!raw || typeof raw !== "object" || Array.isArray(raw)) return;
    const typed = Object.fromEntries(
      Object.entries(raw).filter(([k, v]) => TEXT_FIELDS.has(k) && typeof v === "string"),
    );
    for (const p of checkSlurmOptions(typed).problems) {
      out.push({ pos: pos(["nodes", i, "slurm", p.field]), message: `node "${n.id}": ${p.message}` });
    }
  });
  return out;
}
