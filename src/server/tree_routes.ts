/**
 * The tree view's API: a tree-mode run's step log (`tree/replay.jsonl`, one `{tick, events: [event]}` line
 * per step), whole, and followed live over the same server-sent events as a graph run's replay — the log
 * has the same line shape and ends with a `verdict` event, so the same feed and stream serve it. The
 * dashboard folds the events itself with the tree's step function. Read-only, like the rest of the app.
 *
 * @module
 */
import type { Context, Hono } from "hono";
import type { Feeds } from "./feeds.ts";
import { runDirOf } from "./runs.ts";
import { readPlain, streamPlain } from "./plain_files.ts";
import { LLM_LOG, llmUseOf } from "../tree/mod.ts";
import { DEFAULT_STALL_MS, resumeAfter, sseResponse } from "./sse.ts";

export interface TreeRouteDeps {
  runsDir: string;
  feeds: Feeds;
  stallMs?: number;
}

/** The run's tree directory, when `id` is a run holding one (a real directory, never a link). */
function treeDirOf(runsDir: string, id: string): string | null {
  const dir = runDirOf(runsDir, id);
  if (!dir) return null;
  try {
    return Deno.lstatSync(`${dir}/tree`).isDirectory ? `${dir}/tree` : null;
  } catch {
    return null;
  }
}

/** The most of logs/llm.jsonl read (a line per call: thousands of calls). */
const USAGE_CAP = 16 << 20;

const noTree = (c: Context) => c.json({ error: "no such tree run" }, 404);

export function mountTreeRoutes(app: Hono, deps: TreeRouteDeps): void {
  app.get("/api/tree/:id/replay", async (c) => {
    const dir = treeDirOf(deps.runsDir, c.req.param("id"));
    if (!dir) return noTree(c);
    const body = await streamPlain(dir, "replay.jsonl", true);
    if (typeof body === "string") {
      return body === "missing"
        ? new Response("", { headers: { "content-type": "application/x-ndjson; charset=utf-8" } })
        : c.json({ error: `refused: the file is ${body}` }, 403);
    }
    return new Response(body, {
      headers: { "content-type": "application/x-ndjson; charset=utf-8", "cache-control": "no-store" },
    });
  });

  // The LLM ideator's calls, tokens and cost so far (logs/llm.jsonl), for the tree view's header.
  app.get("/api/tree/:id/usage", async (c) => {
    const runDir = runDirOf(deps.runsDir, c.req.param("id"));
    if (!runDir || !treeDirOf(deps.runsDir, c.req.param("id"))) return noTree(c);
    const r = await readPlain(runDir, LLM_LOG, USAGE_CAP);
    const use = r.ok ? llmUseOf(r.text) : null;
    return c.json(use ?? { calls: 0, tokens: 0, cost: null }, 200, { "cache-control": "no-store" });
  });

  app.get("/api/tree/:id/events", async (c) => {
    const id = c.req.param("id");
    const dir = treeDirOf(deps.runsDir, id);
    if (!dir) return noTree(c);
    if (c.req.method === "HEAD") {
      return new Response(null, { headers: { "content-type": "text/event-stream" } });
    }
    // Keyed apart from the run's own replay feed: a process driving the run pins this same key.
    const { feed, release } = await deps.feeds.open(`tree:${id}`, dir);
    return sseResponse(feed, resumeAfter(c.req.header("last-event-id"), c.req.query("after")), release, {
      stallMs: deps.stallMs ?? DEFAULT_STALL_MS,
    });
  });
}
