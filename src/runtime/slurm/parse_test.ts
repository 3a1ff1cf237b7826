import { deepEqual, equal } from "node:assert/strict";
import { mapState, parseJobcompLine, parseSacct, parseSqueue } from "./parse.ts";

const pick = (
  v: { state: string; exitCode: number | null; signal: number | null; reason: string } | undefined,
) => v && [v.state, v.exitCode, v.signal, v.reason];

Deno.test("parseSqueue() decodes wait statuses: exit code in the high byte, signal in the low bits", () => {
  const rows = parseSqueue(
    [
      "11|FAILED|NonZeroExitCode|768|a",
      "12|FAILED|NonZeroExitCode|9|b",
      "17|FAILED|JobLaunchFailure|4021|g",
      "13|TIMEOUT|TimeLimit|15|c",
      "14|RUNNING|None|0|d|with|bars",
      "15|COMPLETING|None|0|e",
      "16|PENDING|Resources|0|f",
      "garbage line",
      "x|RUNNING|None|0|bad id",
    ].join("\n"),
    1,
  );
  deepEqual([...rows.keys()], ["11", "12", "17", "13", "14", "15", "16"]);
  deepEqual(pick(rows.get("11")), ["FAILED", 3, null, "NonZeroExitCode"]);
  deepEqual(pick(rows.get("12")), ["FAILED", null, 9, "NonZeroExitCode"]);
  deepEqual(pick(rows.get("17")), ["FAILED", null, null, "JobLaunchFailure"]);
  deepEqual(pick(rows.get("13")), ["TIMEOUT", null, 15, "TimeLimit"]);
  equal(rows.get("14")?.name, "d|with|bars");
  deepEqual(pick(rows.get("15")), ["RUNNING", null, null, "None"]);
  deepEqual(pick(rows.get("16")), ["PENDING", null, null, "Resources"]);
});

Deno.test("parseJobcompLine() reads state and exit code, and a job name cannot fake them", () => {
  const line = (name: string, state: string, code: string) =>
    `JobId=12 UserId=root(0) GroupId=root(0) Name=${name} JobState=${state} Partition=main TimeLimit=1 ` +
    `NodeList=localhost WorkDir=/tmp DerivedExitCode=0:0 ExitCode=${code} `;
  deepEqual(pick(parseJobcompLine(line("a", "FAILED", "3:0"), 1) ?? undefined), [
    "FAILED",
    3,
    null,
    "NonZeroExitCode",
  ]);
  deepEqual(pick(parseJobcompLine(line("a", "TIMEOUT", "0:0"), 1) ?? undefined), [
    "TIMEOUT",
    null,
    null,
    "TimeLimit",
  ]);
  deepEqual(pick(parseJobcompLine(line("x JobState=COMPLETED", "FAILED", "0:9"), 1) ?? undefined), [
    "FAILED",
    null,
    9,
    "NonZeroExitCode",
  ]);
  equal(parseJobcompLine("JobId=12 no state here", 1), null);
});

Deno.test("parseSacct() reads parsable2 rows, including 'CANCELLED by 0'", () => {
  const rows = parseSacct(
    "7|CANCELLED by 0|0:15|None\n8|OUT_OF_MEMORY|0:125|None\n9|COMPLETED|0:0|None\n",
    1,
  );
  deepEqual([...rows.values()].map(pick), [
    ["CANCELLED", null, 15, "None"],
    ["OUT_OF_MEMORY", null, 125, "None"],
    ["COMPLETED", 0, null, "None"],
  ]);
});

Deno.test("mapState() maps transitional Slurm states to what the program is doing and unknown words to UNKNOWN", () => {
  deepEqual(
    ["CONFIGURING", "REQUEUED", "SUSPENDED", "BOOT_FAIL", "DEADLINE", "SPECIAL_EXIT", "REVOKED", "WEIRD", ""]
      .map(
        mapState,
      ),
    ["PENDING", "PENDING", "RUNNING", "NODE_FAIL", "TIMEOUT", "FAILED", "CANCELLED", "UNKNOWN", "UNKNOWN"],
  );
});
