/// <reference lib="dom" />
/**
 * One run's data in the browser: the replay lines received so far (fetched at once, then followed over
 * server-sent events while the run is live), its summary, its LLM use (the usage files' calls, tokens and
 * cost, fetched again as live ticks arrive, at most once a second) and where the connection stands.
 *
 * @module
 */
import { action, createModel, effect, signal } from "@preact/signals";
import type { ReplayLine } from "../../src/model/events.ts";
import type { RunState } from "../../src/model/state.ts";
import type { NodeUsage } from "../../src/record/usage_section.ts";
import { eventsUrl, fetchIntegrity, fetchReplay, fetchSummary, type RunSummary } from "../lib/api.ts";
import { type Placed, Timeline } from "../lib/timeline.ts";

export type Phase = "loading" | "live" | "stopped" | "finished" | "missing";

/** Least time between two reads of the usage files while a run is live. */
const USAGE_EVERY_MS = 1000;

const isFinal = (l: ReplayLine) => l.events.some((e) => e.e === "verdict");

export const RunModel = createModel((id: string) => {
  const timeline = new Timeline();
  const lines = signal<readonly ReplayLine[]>([]);
  const summary = signal<RunSummary | null>(null);
  const phase = signal<Phase>("loading");
  const error = signal<string | null>(null);
  const connected = signal(false);
  const usage = signal<Record<string, NodeUsage> | null>(null);
  /** What the server found wrong with the black box (checked once the run has ended), or null. */
  const tampered = signal<string | null>(null);
  let checked = false;
  const checkIntegrity = () => {
    if (checked) return;
    checked = true;
    void fetchIntegrity(id).then((r) => tampered.value = r.problem).catch(() => {});
  };
  let source: EventSource | null = null;

  const stopFollowing = () => {
    source?.close();
    source = null;
    connected.value = false;
  };

  // The usage files grow beside the replay (agent and proxy calls): asked for again as ticks arrive.
  let usageAsked = 0, usageTimer: ReturnType<typeof setTimeout> | null = null;
  const refreshUsage = (now: boolean) => {
    if (usageTimer !== null) return;
    const wait = now ? 0 : Math.max(0, usageAsked + USAGE_EVERY_MS - Date.now());
    usageTimer = setTimeout(() => {
      usageTimer = null;
      usageAsked = Date.now();
      void fetchSummary(id).then((s) => usage.value = s.usage).catch(() => {});
    }, wait);
  };

  const ingest = action((batch: readonly ReplayLine[]) => {
    let grew = false;
    for (const l of batch) grew = timeline.push(l) || grew;
    if (grew) lines.value = timeline.lines.slice();
    const following = source !== null;
    if (batch.some(isFinal)) {
      phase.value = "finished";
      stopFollowing();
      checkIntegrity();
    }
    if (grew && following) refreshUsage(phase.peek() === "finished");
  });

  const follow = action(() => {
    const es = new EventSource(eventsUrl(id, timeline.lines.at(-1)?.tick ?? -1));
    es.addEventListener("tick", (m) => ingest([JSON.parse((m as MessageEvent<string>).data) as ReplayLine]));
    es.addEventListener("done", () => stopFollowing());
    // A line too large to broadcast: fetch the replay (lines already known are ignored).
    es.addEventListener("big", () => void fetchReplay(id).then(ingest).catch(() => {}));
    es.onopen = () => connected.value = true;
    // The browser reconnects by itself and resumes with Last-Event-ID; show the gap meanwhile.
    es.onerror = () => connected.value = false;
    source = es;
  });

  const load = action(async () => {
    try {
      const [sum, replay] = await Promise.all([fetchSummary(id), fetchReplay(id)]);
      summary.value = sum;
      usage.value = sum.usage;
      ingest(replay);
      if (phase.peek() !== "finished") {
        phase.value = sum.phase === "stopped" ? "stopped" : "live";
        if (sum.phase === "stopped") checkIntegrity();
        follow();
      }
    } catch (e) {
      phase.value = "missing";
      error.value = (e as Error).message;
    }
  });

  // Disposing the model closes the event stream.
  effect(() => () => {
    stopFollowing();
    if (usageTimer !== null) clearTimeout(usageTimer);
  });

  return {
    lines,
    summary,
    phase,
    error,
    connected,
    tampered,
    usage,
    load,
    stateAt: (i: number): RunState => timeline.stateAt(i),
    incidentsUpTo: (i: number): Placed[] => timeline.incidentsUpTo(i),
  };
});

export type RunModel = InstanceType<typeof RunModel>;
