/**
 * The replay player: which line of the run is on screen, whether it plays and how fast. While following, the
 * cursor rides the newest line (a live run). Playback pauses by itself on the incidents a person must see:
 * PLATEAU_TRIP, SCOPE_VIOLATION and COMPARABILITY_BLOCK.
 *
 * @module
 */
import { action, computed, createModel, effect, signal } from "@preact/signals";
import type { IncidentType } from "../../src/graph/types.ts";
import type { Incident } from "../../src/model/state.ts";
import type { RunModel } from "./run_model.ts";

export const FREEZE_ON: ReadonlySet<IncidentType> = new Set([
  "PLATEAU_TRIP",
  "SCOPE_VIOLATION",
  "COMPARABILITY_BLOCK",
]);
export const SPEEDS: readonly number[] = [0.5, 1, 2, 4, 8, 16];
/** One tick per this many milliseconds at 1×. */
export const BASE_MS = 400;

export const PlayerModel = createModel((run: RunModel) => {
  const cursor = signal(0);
  const follow = signal(true);
  const playing = signal(false);
  const speed = signal(1);
  const frozenOn = signal<Incident | null>(null);
  const last = computed(() => Math.max(0, run.lines.value.length - 1));
  const tick = computed(() => run.lines.value[cursor.value]?.tick ?? 0);
  const lastTick = computed(() => run.lines.value.at(-1)?.tick ?? 0);
  const live = computed(() => run.phase.value === "live" || run.phase.value === "stopped");

  const freezerAt = (i: number): Incident | null => {
    for (const ev of run.lines.peek()[i]?.events ?? []) {
      if (ev.e === "incident" && FREEZE_ON.has(ev.incident.type)) return ev.incident;
    }
    return null;
  };

  const advance = action(() => {
    if (cursor.value >= last.value) {
      playing.value = false;
      if (live.value) follow.value = true;
      return;
    }
    cursor.value++;
    const f = freezerAt(cursor.value);
    if (f) {
      frozenOn.value = f;
      playing.value = false;
    }
  });

  const seek = action((i: number) => {
    playing.value = false;
    frozenOn.value = null;
    follow.value = false;
    cursor.value = Math.max(0, Math.min(i, last.value));
  });

  const play = action(() => {
    follow.value = false;
    frozenOn.value = null;
    if (cursor.value >= last.value && !live.value) cursor.value = 0;
    playing.value = true;
  });
  const pause = action(() => {
    playing.value = false;
  });

  effect(() => {
    if (follow.value) cursor.value = last.value;
  });
  effect(() => {
    if (!playing.value) return;
    const t = setInterval(advance, BASE_MS / speed.value);
    return () => clearInterval(t);
  });

  return {
    cursor,
    follow,
    playing,
    speed,
    frozenOn,
    last,
    tick,
    lastTick,
    live,
    play,
    pause,
    toggle: action(() => (playing.value ? pause() : play())),
    step: action((d: number) => seek(cursor.value + d)),
    seek,
    toStart: action(() => seek(0)),
    toEnd: action(() => {
      seek(last.value);
      if (live.value) follow.value = true;
    }),
    setSpeed: action((s: number) => {
      speed.value = s;
    }),
  };
});

export type PlayerModel = InstanceType<typeof PlayerModel>;
