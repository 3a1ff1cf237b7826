import { deepEqual, equal } from "node:assert/strict";
import { processesWithToken, sweepLeftovers, sweepOrphans, sweepRun, tokenOf } from "./orphans.ts";

/** A sleeper with `ARROW_TOKEN=token` (or none), in a session of its own; its pid once it runs `sleep`. */
async function sleeper(token: string | null, more: Record<string, string> = {}): Promise<number> {
  const child = new Deno.Command("sleep", {
    args: ["30"],
    env: { ...more, ...(token === null ? {} : { ARROW_TOKEN: token }) },
    clearEnv: true,
    detached: true,
  }).spawn();
  child.status.catch(() => {});
  // Until it has exec'd, the child still has this process's environment.
  while (comm(child.pid) !== "sleep") await new Promise((r) => setTimeout(r, 5));
  return child.pid;
}

function comm(pid: number): string | null {
  try {
    return Deno.readTextFileSync(`/proc/${pid}/comm`).trim();
  } catch {
    return null;
  }
}

async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 500; i++) {
    try {
      const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
      if (stat[stat.lastIndexOf(")") + 2] === "Z") return true;
    } catch {
      return true;
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  return false;
}

Deno.test("sweepOrphans() kills the processes carrying its tokens and no other", async () => {
  const dir = "/tmp/run-" + crypto.randomUUID();
  const [a, b, none] = [await sleeper(`${dir}#a#1`), await sleeper(`${dir}#b#1`), await sleeper(null)];
  equal(tokenOf(a), `${dir}#a#1`);
  equal(tokenOf(none), null);
  deepEqual(processesWithToken((t) => t.startsWith(dir)).sort(), [a, b].sort());
  deepEqual(await sweepOrphans(`${dir}#a#1`), [a]);
  equal(await gone(a), true);
  deepEqual(processesWithToken((t) => t.startsWith(dir)), [b]);
  deepEqual(await sweepOrphans(new Set()), []);
  Deno.kill(b, "SIGKILL");
  Deno.kill(none, "SIGKILL");
});

Deno.test("sweepRun() kills every attempt's leftovers of one run directory, not a sibling run's", async () => {
  const dir = "/tmp/run-" + crypto.randomUUID();
  const [a, b, sibling] = [
    await sleeper(`${dir}#a#1`),
    await sleeper(`${dir}#b#2`),
    await sleeper(`${dir}-2#a#1`),
  ];
  deepEqual((await sweepRun(dir)).sort(), [a, b].sort());
  equal(await gone(a) && await gone(b), true);
  deepEqual(processesWithToken((t) => t.startsWith(dir)), [sibling]);
  Deno.kill(sibling, "SIGKILL");
});

Deno.test("sweepLeftovers() kills a dead run's tokened processes and spares a Slurm job's", async () => {
  const dir = "/tmp/run-" + crypto.randomUUID();
  const mine = await sleeper(`${dir}#a#1`, { PAD: "x".repeat(300) });
  const job = await sleeper(`${dir}#b#1`, { SLURM_JOB_ID: "42" });
  equal(tokenOf(job), `${dir}#b#1`, "the token is read wherever it stands in the environment");
  deepEqual(await sweepLeftovers(dir, null), [mine]);
  equal(await gone(mine), true);
  deepEqual(processesWithToken((t) => t.startsWith(dir)), [job]);
  Deno.kill(job, "SIGKILL");
});
