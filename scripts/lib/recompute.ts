/**
 * Recomputes a score from an artifact file, for the @claim acceptance check. Mock artifacts carry their
 * score; JSONL evaluation logs give their best line. Real model artifacts register a recomputer by kind.
 *
 * @module
 */
import { readJson } from "./files.ts";

/** Recomputes an artifact's score; `path` is the artifact file, so references inside it can be resolved. */
export type Recomputer = (
  artifact: Record<string, unknown>,
  scope: string,
  path: string,
) => Promise<number | string>;

const recomputers = new Map<string, () => Promise<Recomputer>>();

/** Registers how to recompute the score of artifacts of one `kind`. */
export function registerRecomputer(kind: string, load: () => Promise<Recomputer>): void {
  recomputers.set(kind, load);
}

export async function recompute(
  path: string,
  direction: "maximize" | "minimize",
  scope: string,
): Promise<number | string> {
  if (path.endsWith(".jsonl")) {
    let text: string;
    try {
      text = Deno.readTextFileSync(path);
    } catch {
      return "artifact missing";
    }
    let best: number | null = null;
    for (const line of text.split("\n")) {
      if (!line.trim()) continue;
      const row = JSON.parse(line) as { score?: unknown };
      if (typeof row.score !== "number") continue;
      if (best === null || (direction === "maximize" ? row.score > best : row.score < best)) best = row.score;
    }
    return best ?? "no scored line in the log";
  }
  const art = readJson<Record<string, unknown>>(path);
  if (!art) return "artifact missing or not JSON";
  if (art.kind === "mock") return typeof art.score === "number" ? art.score : "mock artifact has no score";
  const load = recomputers.get(String(art.kind));
  if (!load) return `no recomputer for artifact kind ${JSON.stringify(art.kind)}`;
  return (await load())(art, scope, path);
}
