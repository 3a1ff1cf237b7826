import { deepEqual } from "node:assert/strict";
import { isStuckPending } from "./types.ts";

Deno.test("isStuckPending() flags pending reasons that waiting cannot cure, and only for PENDING jobs", () => {
  const pending = (reason: string) => isStuckPending({ state: "PENDING", reason });
  deepEqual(
    ["PartitionTimeLimit", "QOSMaxWallDurationPerJobLimit", "(InvalidAccount)", "DependencyNeverSatisfied"]
      .map(
        pending,
      ),
    [true, true, true, true],
  );
  deepEqual(["Resources", "Priority", "QOSMaxCpuPerUserLimit", "BeginTime", "None"].map(pending), [
    false,
    false,
    false,
    false,
    false,
  ]);
  deepEqual(isStuckPending({ state: "RUNNING", reason: "PartitionTimeLimit" }), false);
});
