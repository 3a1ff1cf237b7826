/**
 * Recomputes a claimed score for the @claim acceptance check, from world-state the claimant does not
 * control. Real model artifacts register a recomputer by kind and are scored on the frozen data set. On
 * the mock path the score is rederived from the node's scripted behaviour, which the engine passes in from
 * the plan: a mock artifact's own `score` field is never read, whatever its `kind` says.
 *
 * @module
 */
import type { DataRef } from "../real/locate.ts";
import { readJson } from "./files.ts";

export interface RecomputeContext {
  direction: "maximize" | "minimize";
  scope: string;
  /** The node's mock behaviour (mock path only). */
  mock: MockSpec | null;
  /** The frozen data set to score real artifacts on, when the tuple is frozen. */
  data: DataRef | null;
}

/** What the engine knows about a mock node: its role, its scripted score or curve, its stream sources. */
export interface MockSpec {
  kind: "fast" | "long" | "reactive";
  role: string;
  score?: number;
  /** The trainer's profile after this attempt's trainer_profile faults. */
  profile?: Record<string, unknown>;
  /** Stream sources: id → scope. */
  sources?: Record<string, string>;
}

/** Recomputes an artifact's score; `path` is the artifact file. */
export type Recomputer = (
  artifact: Record<string, unknown>,
  scope: string,
  path: string,
  data: DataRef | null,
) => Promise<number | string>;

const recomputers = new Map<string, () => Promise<Recomputer>>();

/** Registers how to recompute the score of artifacts of one `kind`. */
export function registerRecomputer(kind: string, load: () => Promise<Recomputer>): void {
  recomputers.set(kind, load);
}

const better = (a: number, b: number, dir: "maximize" | "minimize") => (dir === "maximize" ? a > b : a < b);

/** Mock path: the score the node's script produces, from the plan, not from anything the node wrote. */
async function recomputeMock(path: string, ctx: RecomputeContext, spec: MockSpec): Promise<number | string> {
  if (spec.kind === "long") {
    const art = readJson<{ step?: unknown }>(path);
    if (!art || !Number.isInteger(art.step)) return "mock model names no step";
    const { devAt, normalizeProfile } = await import("../mock/trainer.ts");
    return devAt(normalizeProfile(spec.profile ?? {}), art.step as number);
  }
  if (spec.kind === "reactive") {
    let best: number | null = null;
    for (const scope of Object.values(spec.sources ?? {})) {
      let names: string[] = [];
      try {
        names = [...Deno.readDirSync(`${scope}/ckpt`)].filter((d) => d.isFile).map((d) => d.name);
      } catch {
        continue;
      }
      for (const n of names) {
        const ck = readJson<{ dev?: unknown }>(`${scope}/ckpt/${n}`);
        if (typeof ck?.dev === "number" && (best === null || better(ck.dev, best, ctx.direction))) {
          best = ck.dev;
        }
      }
    }
    return best ?? "no source checkpoint carries a score";
  }
  if (spec.role === "baseline") return spec.score ?? 0.6041;
  return spec.score ?? "the node's mock spec has no score";
}

export async function recompute(path: string, ctx: RecomputeContext): Promise<number | string> {
  if (ctx.mock) return await recomputeMock(path, ctx, ctx.mock);
  const art = readJson<Record<string, unknown>>(path);
  if (!art) return "artifact missing or not JSON";
  const load = recomputers.get(String(art.kind));
  if (!load) return `no recomputer for artifact kind ${JSON.stringify(art.kind)}`;
  return (await load())(art, ctx.scope, path, ctx.data);
}
