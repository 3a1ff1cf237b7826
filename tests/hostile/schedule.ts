/**
 * Every campaign of the hostile suite, started when this module loads, in the order the pool takes them:
 * those that may hang first, so their time overlaps the rest. Tests await the ones they check.
 *
 * @module
 */
import { figure, tailOf, text } from "../helpers/hostile.ts";
import { type Outcome } from "./lab.ts";
import * as plans from "./campaigns.ts";
import { campaign, exists, size } from "./checks.ts";
import { deno, planDoc, py } from "./plans.ts";

export const CLAIMS = campaign(
  "claim_reads",
  (m, lab) => lab.run(m, plans.claimReads(lab)),
);
export const DAEMON_NAIVE = campaign(
  "daemon_naive",
  (m, lab) => lab.run(m, plans.daemons(lab, m.name, ["naive"])),
);

export const BLOB_ENV = { ARROW_BLOB_CAP_MB: "1" };
// A fuse well past what the capped cycles take on a loaded machine; the cycles themselves are counted.
export const LIVELOCK_TICKS = 600;
export const LIVELOCK = campaign(
  "livelock",
  (m, lab) =>
    lab.run(m, plans.blobCap(lab, m.name === "unsandboxed" ? "always" : "once"), {
      env: BLOB_ENV,
      args: ["--max-ticks", String(LIVELOCK_TICKS)],
    }),
);

export const SCOPE = campaign("scope", (m, lab) => lab.run(m, plans.scope(lab)));

export interface Escape {
  checker: string;
  before: string;
  reached: string[];
}
export const ESCAPE = new Map<string, Escape>();
export const ESCAPES = campaign("escapes", async (m, lab) => {
  // Arrow runs from its own copy of the program, so an attack on check_claim.ts never reaches the tree.
  const main = plans.projectCopy(lab, m.name);
  const checker = main.replace("src/cli/main.ts", "src/workers/check_claim.ts");
  const e: Escape = { checker, before: text(checker), reached: [] };
  ESCAPE.set(m.name, e);
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const serving = (async () => {
    for await (const c of listener) {
      const buf = new Uint8Array(256);
      const n = await c.read(buf).catch(() => null);
      e.reached.push(new TextDecoder().decode(buf.subarray(0, n ?? 0)));
      c.close();
    }
  })();
  try {
    return await lab.run(m, plans.escapes(lab, m.name, checker, (listener.addr as Deno.NetAddr).port), {
      main,
    });
  } finally {
    listener.close();
    await serving.catch(() => {});
  }
});

/**
 * kill -9 of arrow in the middle of the scope attacks (the FIFO and socket made, the 100 MB manifest and the
 * over-cap file with a hostile name written, the flood under way), a change to that file while arrow is
 * down, then `arrow resume`. The killed run's outcome is kept beside the resumed one.
 */
export const KILLED = new Map<string, Outcome>();

/**
 * True once the scope record holding `needle` is part of a persisted tick: the record of a tick is written
 * just before its replay line, and a resume goes back to the last replay line.
 */
function persisted(dir: string, needle: string): boolean {
  const line = text(`${dir}/.arrow/scopes.jsonl`).split("\n").find((l) => l.includes(needle));
  const tick = Number(line?.match(/^\{"tick":(\d+)/)?.[1] ?? NaN);
  if (!Number.isFinite(tick)) return false;
  const tail = tailOf(`${dir}/replay.jsonl`, 1 << 16).trimEnd().split("\n").at(-1) ?? "";
  return Number(tail.match(/"tick":(\d+)/)?.[1] ?? -1) >= tick;
}
export const RESUME = campaign("resume", async (m, lab) => {
  const armed = (d: string) =>
    exists(`${d}/nodes/fifo/fifo`) && exists(`${d}/nodes/socket/sock`) &&
    size(`${d}/nodes/huge/results.json`) >= 100 << 20 && size(`${d}/nodes/flood/metrics.jsonl`) >= 5 << 20 &&
    persisted(d, "pwned");
  const k = await lab.run(m, plans.scope(lab, [plans.HOLDER]), {
    env: BLOB_ENV,
    poll: (d) => !!d && armed(d),
  });
  figure(`resume/${m.name} killed`, k.w);
  KILLED.set(m.name, k);
  if (k.dir && exists(`${k.dir}/nodes/holder`)) {
    // Changed while arrow was down, and too large for the blob store: it cannot be restored.
    const f = [...Deno.readDirSync(`${k.dir}/nodes/holder`)].find((e) => e.name.includes("pwned"));
    if (f) Deno.writeFileSync(`${k.dir}/nodes/holder/${f.name}`, new Uint8Array(2 << 20).fill(0xee));
  }
  return await lab.resume(m, k.dir, { env: BLOB_ENV });
});

export const DAEMONS = campaign(
  "daemons",
  (m, lab) => lab.run(m, plans.daemons(lab, m.name, ["detached", "scrubbed"])),
);
export const SIGSTOP = campaign("signal_stop", (m, lab) => lab.run(m, plans.signals(lab, m.name, "SIGSTOP")));
export const SIGTERM = campaign("signal_term", (m, lab) => lab.run(m, plans.signals(lab, m.name, "SIGTERM")));

/** What owner/big.bin holds when its worker wrote it: three MiB of 0, 1, 2. */
export const BIG = new Uint8Array(3 << 20).map((_, i) => i >> 20);
export const OVERWROTE = new Set<string>();
export const BLOBCAP = campaign(
  "blobcap",
  (m, lab) =>
    m.name === "unsandboxed"
      ? lab.run(m, plans.blobCap(lab, "once"), { env: BLOB_ENV })
      // Under bubblewrap no worker can reach the file: the test is the writer, from outside the run.
      : lab.run(m, plans.blobCap(lab, "outside"), {
        env: BLOB_ENV,
        poll: (dir) => {
          if (OVERWROTE.has(m.name) || !dir) return;
          const st = JSON.parse(text(`${dir}/state.json`) || "{}");
          if (st.nodes?.owner?.status !== "verified" || st.nodes?.writer?.status !== "running") return;
          Deno.writeFileSync(`${dir}/nodes/owner/big.bin`, new Uint8Array(3 << 20).fill(0xee));
          OVERWROTE.add(m.name);
        },
      }),
);

/**
 * Entries of /tmp that come and go while the run starts its workers, as other programs' temporary files
 * do: each lives about two polls (40 ms).
 */
export const BUSY_TMP = campaign("busy_tmp", async (m, lab) => {
  const live: string[] = [];
  let k = 0;
  const churn = () => {
    const d = `/tmp/arrow-hostile-churn-${Deno.pid}-${m.name}-${k++}`;
    Deno.mkdirSync(d);
    live.push(d);
    if (live.length > 2) Deno.removeSync(live.shift()!);
  };
  try {
    return await lab.run(m, plans.busyTmp(lab), { poll: churn });
  } finally {
    for (const d of live) Deno.removeSync(d);
  }
});

export const FORGE_KILL = campaign("forge_kill", (m, lab) =>
  lab.run(
    m,
    lab.plan(
      "forge_kill",
      planDoc("Can a worker forge the last word?", [
        { id: "slow", argv: py("victim"), env: { HOLD: "3", HOLD_MAX: "3" } },
        { id: "forger", argv: deno("forge_replay", "kill") },
      ]),
    ),
  ));
