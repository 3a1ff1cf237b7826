/**
 * Every campaign of the hostile suite, started when this module loads, in the order the pool takes them
 * (those that may hang first, so their time overlaps the rest); tests await the ones they check.
 *
 * @module
 */
import { figure, type Lab, type Outcome, text } from "../helpers/hostile.ts";
import * as plans from "./campaigns.ts";
import { campaign, exists, size } from "./checks.ts";
import { deno, planDoc, py } from "./plans.ts";

/** A run that should take seconds; a hang is called after this. */
export const HANG_MS = 45_000;

export const CLAIMS = campaign(
  "claim_reads",
  (m, lab) => lab.run(m, plans.claimReads(lab), { timeoutMs: HANG_MS }),
);
export const DAEMON_NAIVE = campaign(
  "daemon_naive",
  (m, lab) => lab.run(m, plans.daemons(lab, m.name, ["naive"]), { timeoutMs: HANG_MS }),
);
export const FLOODS = campaign(
  "floods",
  (m, lab) => lab.run(m, plans.floods(lab, { floodMb: 40, lineMb: 10, ckpts: 2000, files: 10_000 })),
);
export const SHAPES = campaign("shapes", (m, lab) => lab.run(m, plans.shapes(lab)));
export const MANIFESTS = campaign("manifests", (m, lab) => lab.run(m, plans.manifests(lab)));
export const FORGERY = campaign("forgery", (m, lab) => lab.run(m, plans.forgery(lab)));

export interface Escape {
  checker: string;
  before: string;
  reached: string[];
}
export const ESCAPE = new Map<string, Escape>();
export const ESCAPES = campaign("escapes", async (m, lab) => {
  // Arrow runs from its own copy of the program, so an attack on check_claim.ts never reaches the tree.
  const main = plans.projectCopy(lab, m.name);
  const checker = main.replace("src/cli/main.ts", "scripts/check_claim.ts");
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

export const DAEMONS = campaign(
  "daemons",
  (m, lab) => lab.run(m, plans.daemons(lab, m.name, ["detached", "scrubbed"])),
);
export const SIGSTOP = campaign("signal_stop", (m, lab) => lab.run(m, plans.signals(lab, m.name, "SIGSTOP")));
export const SIGTERM = campaign("signal_term", (m, lab) => lab.run(m, plans.signals(lab, m.name, "SIGTERM")));

/** What owner/big.bin holds when its worker wrote it: three MiB of 0, 1, 2. */
export const BIG = new Uint8Array(3 << 20).map((_, i) => i >> 20);
export const BLOB_ENV = { ARROW_BLOB_CAP_MB: "1" };
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
export const LIVELOCK = campaign(
  "livelock",
  (m, lab) =>
    lab.run(m, plans.blobCap(lab, m.name === "unsandboxed" ? "always" : "once"), {
      env: BLOB_ENV,
      args: ["--tick-ms", "20", "--max-ticks", "150"],
    }),
);

/** kill -9 of arrow once `armed(dir)`, then `arrow resume`; the killed run's outcome is kept beside. */
function killAndResume(
  label: string,
  plan: (lab: Lab) => string,
  armed: (dir: string) => boolean,
  o: { env?: Record<string, string>; afterKill?: (dir: string) => void } = {},
) {
  const killed = new Map<string, Outcome>();
  const c = campaign(label, async (m, lab) => {
    const k = await lab.run(m, plan(lab), { ...(o.env ? { env: o.env } : {}), poll: (d) => !!d && armed(d) });
    figure(`${label}/${m.name} killed`, k.w);
    killed.set(m.name, k);
    o.afterKill?.(k.dir);
    return await lab.resume(m, k.dir, o.env ? { env: o.env } : {});
  });
  return { ...c, killed };
}

export const RESUME_SHAPES = killAndResume(
  "resume_shapes",
  plans.shapes,
  (d) => exists(`${d}/nodes/fifo/fifo`) && exists(`${d}/nodes/socket/sock`),
);
export const RESUME_MANIFESTS = killAndResume(
  "resume_manifests",
  plans.manifests,
  (d) => size(`${d}/nodes/huge/results.json`) >= 100 << 20,
);
export const RESUME_FLOODS = killAndResume(
  "resume_floods",
  (lab) => plans.floods(lab, { floodMb: 40, lineMb: 10, ckpts: 2000, files: 10_000 }),
  (d) => size(`${d}/nodes/flood/metrics.jsonl`) >= 15 << 20,
);
export const RESUME_NAMES = killAndResume(
  "resume_names",
  plans.heldBigFile,
  (d) => text(`${d}/.arrow/scopes.jsonl`).includes("pwned"),
  {
    env: BLOB_ENV,
    // Changed while arrow was down, and too large for the blob store: it cannot be restored.
    afterKill: (d) => {
      const f = [...Deno.readDirSync(`${d}/nodes/holder`)].find((e) => e.name.includes("pwned"))!;
      Deno.writeFileSync(`${d}/nodes/holder/${f.name}`, new Uint8Array(2 << 20).fill(0xee));
    },
  },
);
export const FORGE_KILL = campaign("forge_kill", (m, lab) =>
  lab.run(
    m,
    lab.plan(
      "forge_kill",
      planDoc("Can a worker forge the last word?", [
        { id: "slow", argv: py("victim"), env: { HOLD_MAX: "3" } },
        { id: "forger", argv: deno("forge_replay", "kill") },
      ]),
    ),
  ));
