/**
 * The list of runs on the home page, refreshed every few seconds so new and finishing runs show up.
 *
 * @module
 */
import { action, createModel, effect, signal } from "@preact/signals";
import { fetchRuns, type RunSummary } from "../lib/api.ts";

const REFRESH_MS = 2000;

export const RunsModel = createModel(() => {
  const runs = signal<RunSummary[] | null>(null);
  const error = signal<string | null>(null);

  const refresh = action(async () => {
    try {
      runs.value = await fetchRuns();
      error.value = null;
    } catch (e) {
      error.value = (e as Error).message;
    }
  });

  effect(() => {
    void refresh();
    const t = setInterval(refresh, REFRESH_MS);
    return () => clearInterval(t);
  });

  return { runs, error, refresh };
});

export type RunsModel = InstanceType<typeof RunsModel>;
