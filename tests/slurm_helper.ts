/**
 * A live one-node Slurm cluster for the tests that need one, or the reason there is none. Uses the cluster
 * SLURM_CONF names when it answers (.ci/run starts one and exports it); otherwise starts one with
 * scripts/slurm/cluster.sh in a fixed directory. Several test files share it: each holds a shared lock on
 * DIR/users while it runs, and the last one to finish stops a cluster the tests started themselves.
 *
 * @module
 */
import { execBounded } from "../src/runtime/slurm/exec.ts";

export const CLUSTER_SH = new URL("../scripts/slurm/cluster.sh", import.meta.url).pathname;
const DIR = Deno.env.get("ARROW_SLURM_DIR") ?? "/tmp/arrow-slurm";
const PATH = `${Deno.env.get("PATH") ?? "/usr/bin:/bin"}:/usr/sbin`;

/**
 * Time a test's Slurm client waits for one command. The product's default (5 s) is what a tick can afford;
 * tests run beside a busy suite on two cores, where slurmctld answers late but does answer.
 */
export const LOADED_MS = 30_000;

export interface Cluster {
  /** SLURM_CONF of a live cluster, or null. */
  conf: string | null;
  /** Why there is no cluster (printed once), or null. */
  reason: string | null;
}

/**
 * Why the cluster cannot take jobs, or null. A node finishing another test file's jobs shows as "comp"
 * (completing): it is up. On a busy suite slurmctld answers late, so sinfo gets LOADED_MS.
 */
async function answers(conf: string): Promise<string | null> {
  const r = await execBounded("sinfo", ["--noheader", "--format=%t"], {
    env: { PATH, SLURM_CONF: conf },
    timeoutMs: LOADED_MS,
    maxBytes: 4096,
  }).catch((e) => ({ code: null, stdout: "", stderr: String(e), timedOut: false }));
  if (r.code === 0 && /idle|mix|alloc|comp/.test(r.stdout)) return null;
  return r.timedOut
    ? `sinfo gave no answer in ${LOADED_MS / 1000} s`
    : `sinfo says ${JSON.stringify((r.stderr || r.stdout || `exit ${r.code}`).trim().slice(0, 200))}`;
}

function installed(): boolean {
  return ["sbatch", "squeue", "slurmctld", "slurmd", "munged"].every((b) =>
    PATH.split(":").some((d) => {
      try {
        return Deno.statSync(`${d}/${b}`).isFile;
      } catch {
        return false;
      }
    })
  );
}

async function ensure(): Promise<Cluster> {
  const given = Deno.env.get("SLURM_CONF");
  if (given) {
    const why = await answers(given);
    return why
      ? { conf: null, reason: `SLURM_CONF=${given} does not answer: ${why}` }
      : { conf: given, reason: null };
  }
  if (!installed()) {
    return {
      conf: null,
      reason: "Slurm is not installed (apt-get install -y slurmctld slurmd slurm-client munge)",
    };
  }
  if (Deno.uid() !== 0) return { conf: null, reason: "the one-node cluster's daemons must run as root" };
  Deno.mkdirSync(DIR, { recursive: true });
  // Held (shared) for the life of this test file, taken before the start so a finishing file cannot stop
  // the cluster between our start and our first job.
  const users = Deno.openSync(`${DIR}/users`, { read: true, write: true, create: true });
  users.lockSync(false);
  const out = await new Deno.Command("bash", {
    args: [CLUSTER_SH, "start", DIR],
    env: { ARROW_SLURM_OWNER: "tests", PATH },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  const conf = text.match(/^SLURM_CONF=(.+)$/m)?.[1];
  if (!out.success || !conf) {
    users.close();
    const err = new TextDecoder().decode(out.stderr).trim().split("\n").at(-1) ?? "";
    return { conf: null, reason: `cluster.sh start failed: ${err.slice(0, 300)}` };
  }
  globalThis.addEventListener("unload", () => release(users));
  return { conf, reason: null };
}

/** Drops this file's hold; the last holder stops a cluster the tests started (not one CI or a person did). */
function release(users: Deno.FsFile): void {
  users.close();
  let owner = "";
  try {
    owner = Deno.readTextFileSync(`${DIR}/owner`).trim();
  } catch {
    return;
  }
  if (owner !== "tests") return;
  const last = Deno.openSync(`${DIR}/users`, { read: true, write: true, create: true });
  try {
    if (!last.tryLockSync(true)) return;
    new Deno.Command("bash", {
      args: [CLUSTER_SH, "stop", DIR],
      env: { PATH },
      stdout: "null",
      stderr: "null",
    })
      .outputSync();
  } finally {
    last.close();
  }
}

export const cluster: Cluster = await ensure();
if (cluster.reason) console.log(`Slurm tests ignored: ${cluster.reason}`);

/** Environment for jobs in the tests: enough to find sh, sleep and python3. */
export const JOB_ENV = { PATH: "/usr/local/bin:/usr/bin:/bin", LANG: "C.UTF-8" };
