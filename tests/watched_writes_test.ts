/**
 * No silent refusals without bubblewrap either: an unconfined program (--unsandboxed) runs in a mount
 * namespace of its own whose /tmp, $HOME top level and other runs are shadows, so a command worker's or an
 * acceptance command's write to /tmp is a SCOPE_VIOLATION naming the path and what caught it, and never
 * lands in the host's /tmp; a worker that uses its TMPDIR and its scope stays silent. Where no namespace can
 * be made (unshare not on PATH), the run says so once: on the console and in its report.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { stringify } from "yaml";
import { loadPlan } from "../src/graph/load.ts";
import type { Plan } from "../src/graph/types.ts";
import { arrow } from "./helpers/cli.ts";
import { needs, NO_UNSHARE, UNSHARE } from "./helpers/needs.ts";
import { runReal } from "./helpers/real.ts";

const ignored = needs("watched_writes_test", "the mount namespace case", NO_UNSHARE);

const done = (id: string) => `echo ok > out.txt; printf '{"node":"${id}"}' > results.json`;

/** Clean uses /tmp only through TMPDIR (sh and Python); W writes /tmp; C's acceptance command does. */
function planText(tag: string): string {
  return JSON.stringify({
    question: "Is a write to /tmp by an unconfined program seen?",
    protocol: { version: "p1", metric: "dev_r2", direction: "maximize" },
    nodes: [
      {
        id: "Clean",
        kind: "fast",
        role: "other",
        worker: {
          type: "command",
          argv: [
            "sh",
            "-c",
            `echo t > "$(mktemp)"; python3 -c 'import tempfile; tempfile.mkstemp()'; ${done("Clean")}`,
          ],
        },
        acceptance: ["sh", "-c", 'echo t > "$(mktemp)"; grep -q ok out.txt'],
      },
      {
        id: "W",
        kind: "fast",
        role: "other",
        worker: { type: "command", argv: ["sh", "-c", `echo x > /tmp/${tag}-w.txt; ${done("W")}`] },
      },
      {
        id: "C",
        kind: "fast",
        role: "other",
        worker: { type: "command", argv: ["sh", "-c", done("C")] },
        acceptance: ["sh", "-c", `echo y > /tmp/${tag}-acc.txt; grep -q ok out.txt`],
      },
    ],
    edges: [],
  });
}

function plan(tag: string): Plan {
  const r = loadPlan(planText(tag), "watched.yaml");
  if (!r.plan) throw new Error(JSON.stringify(r.errors));
  return r.plan;
}

const exists = (p: string) => {
  try {
    Deno.lstatSync(p);
    return true;
  } catch {
    return false;
  }
};

Deno.test({
  name: "unconfined and watched: a worker's and an acceptance command's writes to /tmp are caught in the " +
    "namespace's shadow and blamed; a worker using its TMPDIR stays silent",
  ignore: ignored,
  fn: async () => {
    const tag = `arrow-watched-${crypto.randomUUID().slice(0, 8)}`;
    const r = await runReal("watched", plan(tag), [], { bwrap: null, watch: UNSHARE });
    try {
      deepEqual(r.triples.sort(), [["SCOPE_VIOLATION", "C", "blame_routing"], [
        "SCOPE_VIOLATION",
        "W",
        "blame_routing",
      ]]);
      const attempts = Object.fromEntries(
        r.incidents.map((i) => [i.node, (i.evidence as { attempts: unknown[] }).attempts]),
      );
      deepEqual(attempts.W, [{
        op: "write",
        path: `/tmp/${tag}-w.txt`,
        reverted: false,
        stopped_by: "namespace-shadow",
      }]);
      deepEqual(attempts.C, [{
        op: "write",
        path: `/tmp/${tag}-acc.txt`,
        reverted: false,
        stopped_by: "namespace-shadow",
      }]);
      equal(exists(`/tmp/${tag}-w.txt`), false, "the write never reached the host's /tmp");
      equal(exists(`/tmp/${tag}-acc.txt`), false, "the check's write never reached the host's /tmp");
      equal(r.state.nodes.Clean!.status, "verified");
      deepEqual([r.state.nodes.W!.status, r.state.nodes.C!.status], ["blocked", "blocked"]);
      equal(r.state.unwatched, undefined);
    } finally {
      await Deno.remove(r.dir, { recursive: true });
      for (const f of ["w", "acc"]) await Deno.remove(`/tmp/${tag}-${f}.txt`).catch(() => {});
    }
  },
});

/** A PATH directory with links to every system program but bwrap and unshare. */
function pathWithout(...names: string[]): string {
  const dir = Deno.makeTempDirSync({ prefix: "arrow-watched-path-" });
  for (const d of ["/usr/local/bin", "/usr/bin", "/bin", "/usr/sbin", "/sbin"]) {
    for (
      const e of (() => {
        try {
          return [...Deno.readDirSync(d)];
        } catch {
          return [];
        }
      })()
    ) {
      if (names.includes(e.name)) continue;
      try {
        Deno.symlinkSync(`${d}/${e.name}`, `${dir}/${e.name}`);
      } catch {
        // an earlier directory already has this name
      }
    }
  }
  return dir;
}

Deno.test("without a namespace (no unshare), the run says once that writes to /tmp and $HOME go unobserved", async () => {
  const dir = await Deno.makeTempDir({ prefix: "arrow-unwatched-" });
  const path = pathWithout("bwrap", "unshare");
  try {
    const tag = `arrow-unwatched-${crypto.randomUUID().slice(0, 8)}`;
    Deno.writeTextFileSync(`${dir}/plan.yaml`, stringify(JSON.parse(planText(tag))));
    const denoBin = Deno.execPath().slice(0, Deno.execPath().lastIndexOf("/"));
    const r = await arrow(
      ["run", `${dir}/plan.yaml`, "--real", "--unsandboxed", "--runs-dir", `${dir}/runs`],
      { env: { PATH: `${denoBin}:${path}`, HOME: Deno.env.get("HOME") ?? dir } },
    );
    await Deno.remove(`/tmp/${tag}-w.txt`).catch(() => {});
    await Deno.remove(`/tmp/${tag}-acc.txt`).catch(() => {});
    equal(r.code, 0, r.stderr);
    const notes = r.stderr.split("\n").filter((l) => /unobserved/.test(l));
    equal(notes.length, 1, r.stderr);
    match(
      notes[0]!,
      /writes to \/tmp, \$HOME and other runs are unobserved: unshare \(util-linux\) is not installed/,
    );
    const [run] = [...Deno.readDirSync(`${dir}/runs`)];
    const report = Deno.readTextFileSync(`${dir}/runs/${run!.name}/report/report.md`);
    match(report, /## Writes not observed/);
    ok(report.includes("their writes to /tmp, $HOME and other runs are not observed"));
  } finally {
    await Deno.remove(dir, { recursive: true });
    await Deno.remove(path, { recursive: true });
  }
});
