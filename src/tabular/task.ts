/**
 * Everything fixed about one tabular problem before any hypothesis runs: the target and its task, the metric
 * and its direction, and the seeded splits — made once by tree mode (or `arrow run --data`) and then only
 * read. A metric that does not fit the task is refused here, before any work starts.
 *
 * @module
 */
import { defaultMetric, type Direction, type MetricName, METRICS } from "./metrics.ts";
import { makeSplits, type SplitOptions, type Splits } from "./split.ts";
import type { Table } from "./table.ts";
import { makeTarget, type Target, type Task } from "./target.ts";

export interface TabularTask {
  target: Target;
  metric: MetricName;
  direction: Direction;
  splits: Splits;
}

export interface TaskOptions extends SplitOptions {
  /** Force the task instead of inferring it from the target column. */
  task?: Task;
  /** The metric (default: `defaultMetric` of the task). */
  metric?: MetricName;
}

/** Reads the target `targetName` of `table`, picks the metric and cuts the splits. */
export function makeTask(table: Table, targetName: string, options: TaskOptions): TabularTask {
  const target = makeTarget(table, targetName, options.task);
  const metric = options.metric ?? defaultMetric(target.task);
  if (!(metric in METRICS)) throw new RangeError(`Cannot use metric ${JSON.stringify(metric)}: unknown`);
  if (!METRICS[metric].tasks.includes(target.task)) {
    const fits = Object.keys(METRICS).filter((m) => METRICS[m as MetricName].tasks.includes(target.task));
    throw new RangeError(
      `Cannot use metric ${JSON.stringify(metric)} for the ${target.task} target ${
        JSON.stringify(targetName)
      }: ` +
        `use one of ${fits.join(", ")}`,
    );
  }
  return { target, metric, direction: METRICS[metric].direction, splits: makeSplits(target, options) };
}
