/**
 * The dashboard's HTTP app: the embedded client and a read-only JSON API over the runs directory, with
 * server-sent events for runs that are still going. Nothing here writes: every other method gets 405.
 *
 * @module
 */
import { Hono } from "hono";
import type { ReplayLine } from "../model/events.ts";
import type { RunState } from "../model/state.ts";
import { finalState } from "../record/replay.ts";
import { ASSETS } from "./assets.gen.ts";
import type { Feeds } from "./feeds.ts";
import { metricsOf } from "./metrics.ts";
import { type AliveCheck, listRuns, readJsonl, readText, runDirOf, summarize } from "./runs.ts";
import { resumeAfter, sseResponse } from "./sse.ts";

export interface AppDeps {
  runsDir: string;
  feeds: Feeds;
  /** Tells a live run from one whose process died; without it a held lock counts as live. */
  alive?: AliveCheck;
  /** Host names requests may be addressed to (a DNS-rebinding guard for a loopback server); all if unset. */
  hosts?: readonly string[];
}

/** The client may only talk to this server, and agent text can never become script. */
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

export function createApp(deps: AppDeps): Hono {
  const app = new Hono();
  const hosts = deps.hosts ? new Set(deps.hosts) : null;

  app.use("*", async (c, next): Promise<Response | void> => {
    const secure = () => {
      c.header("content-security-policy", CSP);
      c.header("x-content-type-options", "nosniff");
      c.header("referrer-policy", "no-referrer");
      c.header("x-frame-options", "DENY");
    };
    if (hosts && !hosts.has(new URL(c.req.url).hostname)) {
      secure();
      return c.json({ error: "unknown host" }, 403);
    }
    if (c.req.method !== "GET" && c.req.method !== "HEAD") {
      secure();
      c.header("allow", "GET, HEAD");
      return c.json({ error: "the dashboard is read-only" }, 405);
    }
    await next();
    secure();
  });

  app.get("/", (c) => {
    const res = asset(c.req.header("if-none-match"), "/");
    // Start fetching the run's data while the script still loads; the id is a validated plain name.
    const id = c.req.query("run");
    if (id && res.status === 200 && runDirOf(deps.runsDir, id)) {
      const base = `/api/runs/${encodeURIComponent(id)}`;
      res.headers.set(
        "link",
        `<${base}/summary>; rel=preload; as=fetch; crossorigin, <${base}/replay>; rel=preload; as=fetch; crossorigin`,
      );
    }
    return res;
  });
  app.get("/assets/:file", (c) => asset(c.req.header("if-none-match"), `/assets/${c.req.param("file")}`));

  app.get("/api/runs", (c) => {
    c.header("cache-control", "no-store");
    return c.json(listRuns(deps.runsDir, deps.alive));
  });

  const noRun = () => Response.json({ error: "no such run" }, { status: 404 });

  app.get("/api/runs/:id", async (c) => {
    const id = c.req.param("id");
    const dir = runDirOf(deps.runsDir, id);
    if (!dir) return noRun();
    const text = await readText(`${dir}/state.json`);
    if (text === null) return c.json({ error: "state.json is missing" }, 404);
    return new Response(text, {
      headers: { "content-type": "application/json", "cache-control": "no-store" },
    });
  });

  app.get("/api/runs/:id/summary", (c) => {
    const s = summarize(deps.runsDir, c.req.param("id"), deps.alive);
    return s ? c.json(s) : noRun();
  });

  app.get("/api/runs/:id/incidents", async (c) => {
    const dir = runDirOf(deps.runsDir, c.req.param("id"));
    if (!dir) return noRun();
    const lines = (await readJsonl(`${dir}/incidents.jsonl`)) ?? [];
    c.header("cache-control", "no-store");
    return c.json(lines.flatMap((l) => parsed(l)));
  });

  app.get("/api/runs/:id/report", async (c) => {
    const dir = runDirOf(deps.runsDir, c.req.param("id"));
    if (!dir) return noRun();
    const text = await readText(`${dir}/report/report.md`);
    if (text === null) return c.json({ error: "no report yet" }, 404);
    return new Response(text, {
      headers: { "content-type": "text/markdown; charset=utf-8", "cache-control": "no-store" },
    });
  });

  app.get("/api/runs/:id/replay", async (c) => {
    const dir = runDirOf(deps.runsDir, c.req.param("id"));
    if (!dir) return noRun();
    const lines = (await readJsonl(`${dir}/replay.jsonl`)) ?? [];
    return new Response(lines.map((l) => l + "\n").join(""), {
      headers: { "content-type": "application/x-ndjson; charset=utf-8", "cache-control": "no-store" },
    });
  });

  app.get("/api/runs/:id/metrics", async (c) => {
    const dir = runDirOf(deps.runsDir, c.req.param("id"));
    if (!dir) return noRun();
    const lines = ((await readJsonl(`${dir}/replay.jsonl`)) ?? []).flatMap((l) => parsed<ReplayLine>(l));
    const stateText = await readText(`${dir}/state.json`);
    let state: RunState;
    try {
      state = stateText ? JSON.parse(stateText) as RunState : finalState(lines);
    } catch {
      return c.json({ error: "this run has no readable state yet" }, 404);
    }
    c.header("cache-control", "no-store");
    return c.json(metricsOf(state, lines));
  });

  app.get("/api/runs/:id/events", (c) => {
    const id = c.req.param("id");
    const dir = runDirOf(deps.runsDir, id);
    if (!dir) return noRun();
    // A HEAD request would never read (or cancel) the stream, so it gets the headers only.
    if (c.req.method === "HEAD") {
      return new Response(null, { headers: { "content-type": "text/event-stream" } });
    }
    const { feed, release } = deps.feeds.open(id, dir);
    return sseResponse(feed, resumeAfter(c.req.header("last-event-id"), c.req.query("after")), release);
  });

  app.notFound((c) => c.json({ error: "not found" }, 404));
  app.onError((err, c) => {
    console.error(`arrow serve: ${c.req.method} ${new URL(c.req.url).pathname}: ${err.message}`);
    return c.json({ error: "internal error" }, 500);
  });
  return app;
}

function parsed<T = unknown>(line: string): T[] {
  try {
    return [JSON.parse(line) as T];
  } catch {
    return [];
  }
}

function asset(ifNoneMatch: string | undefined, path: string): Response {
  const a = ASSETS[path];
  if (!a) return Response.json({ error: "not found" }, { status: 404 });
  // Asset names carry a content hash, so they never change; the page itself is revalidated.
  const cache = path === "/" ? "no-cache" : "public, max-age=31536000, immutable";
  if (ifNoneMatch === a.etag) return new Response(null, { status: 304, headers: { etag: a.etag } });
  return new Response(a.body, { headers: { "content-type": a.type, etag: a.etag, "cache-control": cache } });
}
