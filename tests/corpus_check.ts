/**
 * Runs one corpus case on the mock path, in process, and lists every way the run differs from the case's
 * expectations (empty when it meets them all), so a corpus run reports all mismatches at once.
 *
 * @module
 */
import { isDeepStrictEqual } from "node:util";
import { prepare } from "../src/engine/prepare.ts";
import { startRun } from "../src/engine/run.ts";
import type { Incident, RunState } from "../src/model/state.ts";
import { parseReplay } from "../src/record/replay.ts";
import type { Case } from "./corpus_case.ts";

export interface CaseRun {
  dir: string;
  state: RunState;
  incidents: Incident[];
  /** The black box, byte for byte: what two runs of a case must agree on. */
  box: { incidents: string; replay: string; state: string };
  report: string;
  detail: Record<string, unknown>;
}

/** Ticks after which a corpus run is fused: far above any case, far below the CLI's 5,000. */
export const CORPUS_MAX_TICKS = 1000;

export async function runCase(c: Case): Promise<CaseRun> {
  const dir = await Deno.makeTempDir({ prefix: `arrow-corpus-${c.name}-` });
  let state: RunState;
  try {
    state = await startRun(prepare(c.resolved.plan, c.resolved.faults, c.name, "mock"), {
      runDir: dir,
      tickMs: 0,
      maxTicks: CORPUS_MAX_TICKS,
    });
  } catch (e) {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    throw e;
  }
  const read = (p: string) => Deno.readTextFileSync(`${dir}/${p}`);
  const box = { incidents: read("incidents.jsonl"), replay: read("replay.jsonl"), state: read("state.json") };
  const verdictEvent = parseReplay(box.replay).lines.flatMap((l) => l.events).findLast((e) =>
    e.e === "verdict"
  );
  return {
    dir,
    state,
    incidents: box.incidents.split("\n").filter(Boolean).map((l) => JSON.parse(l)),
    box,
    report: read("report/report.md"),
    detail: verdictEvent?.e === "verdict" ? verdictEvent.detail as unknown as Record<string, unknown> : {},
  };
}

/** The value at a dotted path ("manifest.score") of `obj`. */
function at(obj: unknown, path: string): unknown {
  return path.split(".").reduce<unknown>(
    (o, k) => (typeof o === "object" && o !== null ? (o as Record<string, unknown>)[k] : undefined),
    obj,
  );
}

const show = (x: unknown) => JSON.stringify(x) ?? "undefined";

function fields(what: string, actual: unknown, want: Record<string, unknown>, out: string[]): void {
  for (const [k, v] of Object.entries(want)) {
    const got = at(actual, k);
    if (!isDeepStrictEqual(got, v)) out.push(`${what} ${k}: expected ${show(v)}, got ${show(got)}`);
  }
}

function readJson(path: string): unknown {
  try {
    return JSON.parse(Deno.readTextFileSync(path));
  } catch {
    return undefined;
  }
}

/** Ticks at which more gpu or cpu slots were held than the plan has (ADMIT fills free slots only). */
function slotOverruns(r: CaseRun): string[] {
  const held = { gpu: new Set<string>(), cpu: new Set<string>() };
  const out: string[] = [];
  for (const line of parseReplay(r.box.replay).lines) {
    for (const ev of line.events) {
      if (ev.e !== "slot") continue;
      if (ev.op === "hold") held[ev.slot].add(ev.node);
      else held[ev.slot].delete(ev.node);
    }
    for (const slot of ["gpu", "cpu"] as const) {
      const total = r.state.slots[slot].total;
      if (held[slot].size > total) {
        out.push(`tick ${line.tick}: ${held[slot].size} ${slot} slots held of ${total}`);
      }
    }
  }
  return out;
}

function exists(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Every difference between the run and the case's expectations. */
export function mismatches(c: Case, r: CaseRun): string[] {
  const e = c.expect;
  const out: string[] = [];
  if (r.state.verdict !== e.verdict) out.push(`verdict: expected ${e.verdict}, got ${r.state.verdict}`);
  const got = r.incidents.map((i) => [i.type, i.node, i.ladder]);
  if (!isDeepStrictEqual(got, e.incidents)) {
    out.push(`incidents: expected ${show(e.incidents)}, got ${show(got)}`);
  }
  const statuses = Object.fromEntries(
    r.state.plan.order.filter((id) => r.state.nodes[id]!.spawned).map((
      id,
    ) => [id, r.state.nodes[id]!.status]),
  );
  for (const id of new Set([...Object.keys(statuses), ...Object.keys(e.statuses)])) {
    if (statuses[id] !== e.statuses[id]) {
      out.push(
        `status of ${id}: expected ${e.statuses[id] ?? "(not spawned)"}, got ${
          statuses[id] ?? "(not spawned)"
        }`,
      );
    }
  }
  for (const k of ["method", "score", "best_score"] as const) {
    if (e[k] !== undefined && !isDeepStrictEqual(r.detail[k], e[k])) {
      out.push(`verdict ${k}: expected ${show(e[k])}, got ${show(r.detail[k])}`);
    }
  }
  for (const [i, want] of Object.entries(e.evidence ?? {})) {
    const inc = r.incidents[Number(i)];
    if (!inc) out.push(`evidence of incident ${i}: no such incident`);
    else fields(`incident ${i} (${inc.type} ${inc.node}) evidence`, inc.evidence, want, out);
  }
  for (const [id, want] of Object.entries(e.nodes ?? {})) fields(`node ${id}`, r.state.nodes[id], want, out);
  if (e.frozen) fields("frozen tuple", r.state.frozen, e.frozen, out);
  for (const [file, want] of Object.entries(e.files ?? {})) {
    const json = readJson(`${r.dir}/${file}`);
    if (json === undefined) out.push(`${file}: missing or not JSON`);
    else fields(file, json, want, out);
  }
  for (const p of e.absent ?? []) {
    if (exists(`${r.dir}/${p}`)) out.push(`${p}: exists`);
  }
  for (const phrase of e.report?.lacks ?? []) {
    if (r.report.includes(phrase)) out.push(`report: says ${show(phrase)}`);
  }
  const lines = r.report.split("\n");
  for (const id of e.report?.lists ?? []) {
    const st = r.state.nodes[id]?.status ?? "?";
    const named = new RegExp(`(^|[^A-Za-z0-9_-])${id}([^A-Za-z0-9_-]|$)`);
    if (!lines.some((l) => named.test(l) && l.includes(st) && !l.startsWith("| "))) {
      out.push(`report: no line lists ${id} as ${st}`);
    }
  }
  out.push(...slotOverruns(r));
  if (e.max_tick !== undefined && r.state.tick > e.max_tick) {
    out.push(`concluded at tick ${r.state.tick}, expected by tick ${e.max_tick}`);
  }
  return out;
}
