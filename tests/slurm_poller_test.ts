/**
 * The client against fake Slurm tools on its PATH (no cluster needed): a squeue that hangs is cut at the
 * call's time limit while state() keeps answering with the last known view; forgotten jobs are read from the
 * job completion file; a job missing from one poll is not declared lost; a submission whose sbatch hangs is
 * found by its name.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { SlurmClient } from "../src/runtime/slurm/mod.ts";

interface Fake {
  dir: string;
  rows(text: string): void;
  slow(on: boolean): void;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Fake sbatch/squeue/scontrol/scancel: squeue prints rows.txt, or hangs while the file `slow` exists. */
async function fake(): Promise<Fake> {
  const dir = await Deno.makeTempDir({ prefix: "arrow-fake-slurm-" });
  const tool = (name: string, body: string) => {
    Deno.writeTextFileSync(`${dir}/${name}`, `#!/bin/sh\n${body}\n`);
    Deno.chmodSync(`${dir}/${name}`, 0o755);
  };
  tool(
    "scontrol",
    `printf 'JobCompType = jobcomp/filetxt\\nJobCompLoc = ${dir}/jobcomp.txt\\nAccountingStorageType = accounting_storage/none\\n'`,
  );
  tool(
    "squeue",
    [
      `[ -e ${dir}/slow ] && sleep 3600`,
      `case "$*" in *--jobs=*,*|*--me*) ;; *--jobs=*) grep -q . ${dir}/rows.txt || { echo 'slurm_load_jobs error: Invalid job id specified' >&2; exit 1; } ;; esac`,
      `cat ${dir}/rows.txt`,
    ].join("\n"),
  );
  tool("sbatch", `cat > ${dir}/script.txt\n[ -e ${dir}/slow ] && sleep 3600\necho 42`);
  tool("scancel", "exit 0");
  Deno.writeTextFileSync(`${dir}/rows.txt`, "");
  Deno.writeTextFileSync(`${dir}/jobcomp.txt`, "");
  return {
    dir,
    rows: (text) => Deno.writeTextFileSync(`${dir}/rows.txt`, text),
    slow: (on) => on ? Deno.writeTextFileSync(`${dir}/slow`, "") : Deno.removeSync(`${dir}/slow`),
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  };
}

const connect = (f: Fake) =>
  SlurmClient.connect({
    conf: null,
    path: `${f.dir}:/usr/bin:/bin`,
    pollMs: 60_000,
    callTimeoutMs: 300,
    submitTimeoutMs: 300,
  });

const spec = (dir: string) => ({
  name: "arrow.r.n.1",
  argv: ["python3", "train.py", "--lr", "it's"],
  env: { PATH: "/usr/bin" },
  cwd: dir,
  stdout: `${dir}/o`,
  stderr: `${dir}/e`,
});

Deno.test("SlurmClient.state() keeps the last known view while squeue hangs, and the poll is cut at its limit", async () => {
  await using f = await fake();
  const c = await connect(f);
  try {
    const id = await c.submit(spec(f.dir));
    equal(id, "42");
    match(Deno.readTextFileSync(`${f.dir}/script.txt`), /^exec python3 train.py --lr 'it'\\''s'$/m);
    f.rows("42|RUNNING|None|0|arrow.r.n.1\n");
    await c.refresh();
    equal(c.state(id).state, "RUNNING");

    f.slow(true);
    const t0 = performance.now();
    const poll = c.refresh();
    equal(c.state(id).state, "RUNNING", "state() answers while a poll is in flight");
    await poll;
    // squeue would have slept an hour: the poll ended because the client killed it.
    ok(performance.now() - t0 < 10_000);
    const h = c.health();
    equal(h.consecutiveFailures, 1);
    match(h.lastError ?? "", /squeue timed out/);
    deepEqual([c.state(id).state, c.state(id).source], ["RUNNING", "squeue"]);

    f.slow(false);
    f.rows("42|COMPLETED|None|0|arrow.r.n.1\n");
    await c.refresh();
    deepEqual([c.state(id).state, c.state(id).exitCode, c.health().consecutiveFailures], ["COMPLETED", 0, 0]);
  } finally {
    await c.close();
  }
});

Deno.test("SlurmClient.adopt() reads jobs squeue has forgotten from the job completion file, else UNKNOWN", async () => {
  await using f = await fake();
  Deno.writeTextFileSync(
    `${f.dir}/jobcomp.txt`,
    "JobId=77 UserId=u(1) GroupId=g(1) Name=arrow.r.n.1 JobState=FAILED Partition=main TimeLimit=1 " +
      "NodeList=n1 WorkDir=/w DerivedExitCode=0:0 ExitCode=2:0\n",
  );
  const c = await connect(f);
  try {
    const one = await c.adopt(["77"]);
    deepEqual(
      [one.get("77")?.state, one.get("77")?.exitCode, one.get("77")?.source],
      ["FAILED", 2, "jobcomp"],
    );
    const two = await c.adopt(["78"]);
    equal(two.get("78")?.state, "UNKNOWN");
  } finally {
    await c.close();
  }
});

Deno.test("SlurmClient.state() declares a watched job lost only after two polls in a row miss it", async () => {
  await using f = await fake();
  const c = await connect(f);
  try {
    const id = await c.submit(spec(f.dir));
    f.rows("42|RUNNING|None|0|arrow.r.n.1\n43|RUNNING|None|0|other\n");
    await c.refresh();
    f.rows("43|RUNNING|None|0|other\n");
    await c.refresh();
    equal(c.state(id).state, "RUNNING");
    await c.refresh();
    equal(c.state(id).state, "UNKNOWN");
  } finally {
    await c.close();
  }
});

Deno.test("SlurmClient.submit() finds its job by name when sbatch gives no answer in time", async () => {
  await using f = await fake();
  const c = await connect(f);
  try {
    f.slow(true);
    Deno.writeTextFileSync(`${f.dir}/squeue`, `#!/bin/sh\necho '51|PENDING|Priority|0|arrow.r.n.1'\n`);
    equal(await c.submit(spec(f.dir)), "51");
    deepEqual([c.state("51").state, c.state("51").source], ["PENDING", "submit"]);
  } finally {
    await c.close();
  }
});
