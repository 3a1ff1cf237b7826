/**
 * The dashboard's HTTP app: the embedded client and a read-only JSON API over the runs directory, with
 * server-sent events for runs that are still going. Nothing here writes: every other method gets 405.
 * Every response — errors included — carries the same security headers; a malformed Host gets 400, a host
 * not allowed 403, a missing or wrong access token 401. Files are streamed, or parsed only under a size
 * cap and a bound on concurrent parses, so many clients cannot make the server's memory grow.
 *
 * @module
 */
import { type Context, Hono } from "hono";
import type { ReplayLine } from "../model/events.ts";
import { applyTick, initial } from "../model/reduce.ts";
import type { RunState } from "../model/state.ts";
import { chainProblem } from "../record/blackbox.ts";
import { readHead } from "../record/chain.ts";
import { parseReplay } from "../record/replay.ts";
import { verdictProblem } from "../record/verdict_check.ts";
import { parseBounded } from "../runtime/bounded_json.ts";
import { type AccessPolicy, hostOf, presentedToken, sameToken, tokenCookie } from "./access.ts";
import { ASSETS } from "./assets.gen.ts";
import type { Feeds } from "./feeds.ts";
import { metricsOf } from "./metrics.ts";
import { type AliveCheck, heavy, listRuns, readObject, runDirOf, STATE_CAP, summarize } from "./runs.ts";
import { plainLines, readPlain, streamPlain, type Unreadable } from "./plain_files.ts";
import { DEFAULT_STALL_MS, resumeAfter, sseResponse } from "./sse.ts";
import { mountTreeRoutes } from "./tree_routes.ts";

export interface AppDeps extends AccessPolicy {
  runsDir: string;
  feeds: Feeds;
  /** Tells a live run from one whose process died; without it a held lock counts as live. */
  alive?: AliveCheck;
  /** An event-stream client that takes nothing for this long while lines wait is dropped. */
  stallMs?: number;
}

/** Longest JSONL line the API parses (incidents, metrics); longer ones are skipped. */
const LINE_CAP = 4 * 1024 * 1024;
/** Largest replay.jsonl the integrity check reads whole. */
const INTEGRITY_CAP = 64 * 1024 * 1024;

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

const SECURITY_HEADERS: Record<string, string> = {
  "content-security-policy": CSP,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
};

function secured(res: Response): Response {
  for (const [k, v] of Object.entries(SECURITY_HEADERS)) res.headers.set(k, v);
  return res;
}

const refuse = (status: number, error: string) => secured(Response.json({ error }, { status }));

export function createApp(deps: AppDeps): Hono {
  const app = new Hono();
  const hosts = deps.hosts ? new Set(deps.hosts.map((h) => h.toLowerCase())) : null;
  const token = deps.token;

  app.use("*", async (c, next): Promise<Response | void> => {
    const host = hostOf(c.req.header("host"), c.req.url);
    if (host === null) return refuse(400, "malformed Host header");
    if (hosts && !hosts.has(host)) return refuse(403, "unknown host");
    let cookie: string | null = null;
    if (token !== undefined) {
      const given = presentedToken(c.req);
      if (!given || !sameToken(given.token, token)) {
        return refuse(
          401,
          "this dashboard needs its access token: open the link arrow printed when it started",
        );
      }
      if (given.via === "query") cookie = tokenCookie(token);
    }
    if (c.req.method !== "GET" && c.req.method !== "HEAD") {
      const res = refuse(405, "the dashboard is read-only");
      res.headers.set("allow", "GET, HEAD");
      return res;
    }
    if (cookie && c.req.path === "/") {
      // The page: keep the token in the cookie, not in the address bar or the history.
      const url = new URL(c.req.url);
      url.searchParams.delete("token");
      return secured(
        new Response(null, {
          status: 303,
          headers: { location: url.pathname + url.search, "set-cookie": cookie },
        }),
      );
    }
    await next();
    secured(c.res);
    if (cookie) c.res.headers.append("set-cookie", cookie);
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

  app.get("/api/runs", async (c) => {
    c.header("cache-control", "no-store");
    return c.json(await listRuns(deps.runsDir, deps.alive));
  });

  const noRun = () => Response.json({ error: "no such run" }, { status: 404 });
  const dirOf = (c: Context) => runDirOf(deps.runsDir, c.req.param("id") ?? "");

  /** A run file streamed as it is on disk. */
  const serveFile = async (c: Context, rel: string, type: string, missing: string, wholeLines = false) => {
    const dir = dirOf(c);
    if (!dir) return noRun();
    const body = await streamPlain(dir, rel, wholeLines);
    if (typeof body === "string") {
      return c.json({ error: why(missing, body) }, body === "missing" ? 404 : 403);
    }
    return new Response(body, { headers: { "content-type": type, "cache-control": "no-store" } });
  };

  app.get("/api/runs/:id", (c) => serveFile(c, "state.json", "application/json", "state.json is missing"));
  app.get(
    "/api/runs/:id/report",
    (c) => serveFile(c, "report/report.md", "text/markdown; charset=utf-8", "no report yet"),
  );
  app.get("/api/runs/:id/replay", async (c) => {
    const res = await serveFile(
      c,
      "replay.jsonl",
      "application/x-ndjson; charset=utf-8",
      "no replay yet",
      true,
    );
    // A run that has not written its first tick has an empty replay, not a missing one.
    return res.status === 404 && dirOf(c) ? new Response("", { headers: res.headers }) : res;
  });

  app.get("/api/runs/:id/summary", async (c) => {
    const s = await summarize(deps.runsDir, c.req.param("id"), deps.alive);
    return s ? c.json(s) : noRun();
  });

  // The black box's integrity as resume and `arrow replay --check` judge it: the hash chain, and every
  // verdict one the record implies. The dashboard shows a problem above the verdict.
  app.get("/api/runs/:id/integrity", async (c) => {
    const dir = dirOf(c);
    if (!dir) return noRun();
    const body = await heavy.run(async () => {
      const r = await readPlain(dir, "replay.jsonl", INTEGRITY_CAP);
      if (!r.ok) return { checked: false, problem: null, why: `replay.jsonl is ${r.why}` };
      try {
        const parsed = parseReplay(r.text);
        const head = readHead(dir);
        return { checked: true, problem: chainProblem(parsed, head) ?? verdictProblem(parsed.lines) };
      } catch (e) {
        return { checked: true, problem: `cannot be replayed: ${(e as Error).message.slice(0, 300)}` };
      }
    });
    c.header("cache-control", "no-store");
    return c.json(body);
  });

  app.get("/api/runs/:id/incidents", (c) => {
    const dir = dirOf(c);
    if (!dir) return noRun();
    c.header("cache-control", "no-store");
    return new Response(jsonArrayOfLines(dir, "incidents.jsonl"), {
      headers: { "content-type": "application/json", "cache-control": "no-store" },
    });
  });

  app.get("/api/runs/:id/metrics", async (c) => {
    const dir = dirOf(c);
    if (!dir) return noRun();
    const view = await heavy.run(async () => {
      // Only metric events are kept from the replay; the state comes from state.json, else from folding.
      const metricLines: ReplayLine[] = [];
      let folded: RunState | undefined;
      const stateFile = await readObject(dir, "state.json", STATE_CAP) as RunState | null;
      for await (const text of plainLines(dir, "replay.jsonl", LINE_CAP)) {
        const r = parseBounded(text, { maxBytes: LINE_CAP, maxDepth: 128 });
        if (!r.ok) continue;
        const line = r.value as ReplayLine;
        if (!Array.isArray(line?.events)) continue;
        if (!stateFile) {
          try {
            folded = folded ? applyTick(folded, line) : initial(line);
          } catch {
            return null;
          }
        }
        const metrics = line.events.filter((e) => e?.e === "metric");
        if (metrics.length) metricLines.push({ tick: line.tick, events: metrics });
      }
      const state = stateFile ?? folded;
      try {
        return state ? metricsOf(state, metricLines) : null;
      } catch {
        return null;
      }
    });
    if (!view) return c.json({ error: "this run has no readable state yet" }, 404);
    c.header("cache-control", "no-store");
    return c.json(view);
  });

  app.get("/api/runs/:id/events", async (c) => {
    const id = c.req.param("id");
    const dir = runDirOf(deps.runsDir, id);
    if (!dir) return noRun();
    // A HEAD request would never read (or cancel) the stream, so it gets the headers only.
    if (c.req.method === "HEAD") {
      return new Response(null, { headers: { "content-type": "text/event-stream" } });
    }
    const { feed, release } = await deps.feeds.open(id, dir);
    return sseResponse(feed, resumeAfter(c.req.header("last-event-id"), c.req.query("after")), release, {
      stallMs: deps.stallMs ?? DEFAULT_STALL_MS,
    });
  });

  mountTreeRoutes(app, deps);
  app.notFound((c) => c.json({ error: "not found" }, 404));
  app.onError((err, c) => {
    console.error(`arrow serve: ${c.req.method} ${visible(c.req.path)}: ${visible(err.message)}`);
    return refuse(500, "internal error");
  });
  return app;
}

/** A request path or an error message for the terminal: controls and bidi overrides as escapes, cut. */
function visible(s: string): string {
  // deno-lint-ignore no-control-regex
  const unsafe = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
  return s.slice(0, 500).replace(unsafe, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

function why(missing: string, reason: Unreadable): string {
  return reason === "missing" ? missing : `refused: the file is ${reason}`;
}

/** A JSONL file as a JSON array, streamed: malformed and oversized lines are left out. */
function jsonArrayOfLines(dir: string, rel: string): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  const lines = plainLines(dir, rel, LINE_CAP);
  let first = true;
  let done = false;
  return new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(enc.encode("["));
    },
    async pull(c) {
      if (done) return;
      for (;;) {
        const next = await lines.next();
        if (next.done) {
          done = true;
          c.enqueue(enc.encode("]"));
          c.close();
          return;
        }
        if (!parseBounded(next.value, { maxBytes: LINE_CAP, maxDepth: 128 }).ok) continue;
        c.enqueue(enc.encode((first ? "" : ",") + next.value));
        first = false;
        return;
      }
    },
    async cancel() {
      await lines.return(undefined);
    },
  }, { highWaterMark: 0 });
}

function asset(ifNoneMatch: string | undefined, path: string): Response {
  const a = ASSETS[path];
  if (!a) return Response.json({ error: "not found" }, { status: 404 });
  // Asset names carry a content hash, so they never change; the page itself is revalidated.
  const cache = path === "/" ? "no-cache" : "public, max-age=31536000, immutable";
  if (ifNoneMatch === a.etag) return new Response(null, { status: 304, headers: { etag: a.etag } });
  return new Response(a.body, { headers: { "content-type": a.type, etag: a.etag, "cache-control": cache } });
}
