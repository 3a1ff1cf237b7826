import { deepEqual, equal, match } from "node:assert/strict";
import { checkSlurmOptions, parseGres, parseMem, parseTimeLimit } from "./options.ts";

Deno.test("parseTimeLimit() accepts every Slurm form and rounds up to whole minutes", () => {
  const minutes = (v: unknown) => {
    const r = parseTimeLimit(v);
    return "minutes" in r ? r.minutes : r.error;
  };
  deepEqual(
    ["90", 90, "1:30", "01:30:00", "2-00", "1-02:03", "1-00:00:01", "UNLIMITED"].map(minutes),
    [90, 90, 2, 90, 2880, 1563, 1441, Infinity],
  );
});

Deno.test("parseTimeLimit() names the value and the accepted forms when it rejects one", () => {
  for (const bad of ["1h", "", "0", 0, -5, 1.5, "1:60", "1-2:3:60", "1:2:3:4", null]) {
    const r = parseTimeLimit(bad);
    match("error" in r ? r.error : "accepted", /^Cannot use time .+/, `value ${String(bad)}`);
  }
});

Deno.test("parseMem() normalises units and rejects zero, fractions and unknown units", () => {
  deepEqual([parseMem("4g"), parseMem("512M"), parseMem(2048), parseMem("1T")], [
    { value: "4G", mb: 4096 },
    { value: "512M", mb: 512 },
    { value: "2048M", mb: 2048 },
    { value: "1T", mb: 1048576 },
  ]);
  for (const bad of ["0G", "1.5G", "4X", "", 0, -1]) equal("error" in parseMem(bad), true, String(bad));
});

Deno.test("parseGres() accepts name, name:count and name:type:count lists", () => {
  deepEqual(["gpu", "gpu:2", "gpu:a100:2", "gpu:1, shard:2"].map((g) => parseGres(g)), [
    { value: "gpu" },
    { value: "gpu:2" },
    { value: "gpu:a100:2" },
    { value: "gpu:1,shard:2" },
  ]);
  for (const bad of ["", "gpu:0", "gpu:a100:x", "gpu:a:b:1", "g pu", 3]) {
    equal("error" in parseGres(bad), true, String(bad));
  }
});

Deno.test("checkSlurmOptions() returns normalised options and one problem per bad or unknown key", () => {
  const { options, problems } = checkSlurmOptions({
    partition: "gpu,main",
    time: "2-00:00:00",
    mem: "16g",
    account: "lab-x",
    gres: "gpu:1",
    cpus: 4,
    qos: "normal",
  });
  deepEqual(options, {
    partition: "gpu,main",
    time: "2-00:00:00",
    mem: "16G",
    account: "lab-x",
    gres: "gpu:1",
    cpus: 4,
    qos: "normal",
  });
  deepEqual(problems, []);
  const bad = checkSlurmOptions({ partition: "a b", time: "soon", memory: "4G", cpus: 0 });
  deepEqual(bad.problems.map((p) => p.field), ["partition", "time", "memory", "cpus"]);
  match(bad.problems[2]!.message, /unknown \(known: partition, time, mem/);
  deepEqual(checkSlurmOptions(["x"]).problems.map((p) => p.field), [""]);
});
