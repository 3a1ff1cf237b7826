/**
 * No silent refusals, where bubblewrap still refuses: an input lane too large to copy (past COPY_LIMIT) is a
 * read-only bind, so the lane is put on the record at launch, and a write the program tried there is a
 * SCOPE_VIOLATION when its own stderr names the refused path (a line it could fake only blames itself). An
 * acceptance check that rewrites the scope it judges writes a copy, and is seen; a secret file under $HOME
 * reads empty and a write to it is seen, as is an edit of a top-level file of $HOME. Bare, the same
 * oversized lane's write lands and the fingerprint guard reverts it, naming no writer.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { loadPlan } from "../src/graph/load.ts";
import type { Plan } from "../src/graph/types.ts";
import { BWRAP, needs, NO_BWRAP } from "./helpers/needs.ts";
import { runReal } from "./helpers/real.ts";

const ignored = needs("refused_writes_test", "the bubblewrap cases", NO_BWRAP);

function planOf(nodes: unknown[], edges: unknown[] = []): Plan {
  const r = loadPlan(
    JSON.stringify({
      question: "Is a refused write on the record?",
      protocol: { version: "p1", metric: "dev_r2", direction: "maximize" },
      nodes,
      edges,
    }),
    "refused.yaml",
  );
  if (!r.plan) throw new Error(JSON.stringify(r.errors));
  return r.plan;
}

const done = (id: string) => `printf '{"node":"${id}"}' > results.json`;

/**
 * A writes 2,001 files (past COPY_LIMIT); B, reading A, tries to write into it and fakes a line naming a
 * path outside every lane. Bare, B first waits until the black box shows it running: a write made while its
 * start's tick is still being recorded would be recorded as A's own content (a race of the guard's, not of
 * this test's subject).
 */
const bigLane = (bare = false) =>
  planOf([
    {
      id: "A",
      kind: "fast",
      role: "other",
      worker: {
        type: "command",
        argv: ["sh", "-c", `i=0; while [ $i -le 2000 ]; do : > f$i; i=$((i+1)); done; ${done("A")}`],
      },
    },
    {
      id: "B",
      kind: "fast",
      role: "other",
      worker: {
        type: "command",
        argv: [
          "sh",
          "-c",
          [
            ...(bare
              ? [
                `until grep -q '"node":"B","to":"running"' "$ARROW_RUN_DIR/replay.jsonl"; do sleep 0.05; done`,
              ]
              : []),
            "echo x > ../A/evil.txt",
            "echo 'cannot write /etc/motd: Read-only file system' >&2",
            done("B"),
          ].join("; "),
        ],
      },
    },
  ], [{ from: "A", to: "B", kind: "artifact" }]);

interface Attempt {
  path: string;
  op: string;
  stopped_by: string | null;
  reverted: boolean;
  seen_in?: string;
}

Deno.test({
  name:
    "a write refused in a lane too large to copy is on the record: the lane at launch, the write from stderr",
  ignore: ignored,
  fn: async () => {
    const r = await runReal("refused_lane", bigLane(), [], { bwrap: BWRAP });
    try {
      deepEqual(r.state.nodes.B!.refused, [
        { attempt: 1, by: "worker", path: "nodes/A", why: "more than 2,000 files (COPY_LIMIT)" },
      ]);
      deepEqual(r.triples, [["SCOPE_VIOLATION", "B", "blame_routing"]]);
      const ev = r.incidents[0]!.evidence as { writer: string; attempts: Attempt[] };
      equal(ev.writer, "B");
      // The faked line names a path under no lane Arrow bound read-only: it is no evidence.
      deepEqual(ev.attempts, [{
        path: "nodes/A/evil.txt",
        op: "write",
        stopped_by: "read-only mount",
        seen_in: "the program's stderr",
        reverted: false,
      }]);
      equal(r.state.nodes.B!.status, "blocked");
      const report = Deno.readTextFileSync(`${r.dir}/report/report.md`);
      ok(report.includes("## Lanes bound read-only"), report);
      ok(report.includes("| B | 1 | worker | nodes/A | more than 2,000 files (COPY\\_LIMIT) |"), report);
      const replay = Deno.readTextFileSync(`${r.dir}/replay.jsonl`);
      ok(
        replay.includes(`"refused":[{"attempt":1,"by":"worker","path":"nodes/A"`),
        "a note in the black box",
      );
    } finally {
      await Deno.remove(r.dir, { recursive: true });
    }
  },
});

Deno.test("without bubblewrap, the write into the lane too large to copy lands, the guard reverts it and blames the one unconfined program", async () => {
  const r = await runReal("refused_lane_bare", bigLane(true), [], { bwrap: null });
  try {
    equal(r.state.nodes.B!.refused, undefined, "no sandbox, no read-only lane");
    // No layer saw who wrote; B was the one program running, unconfined, so it is blamed and says why.
    deepEqual(r.triples, [["SCOPE_VIOLATION", "B", "blame_routing"]]);
    const ev = r.incidents[0]!.evidence as { writer: string; basis?: string; attempts: Attempt[] };
    equal(ev.writer, "B");
    equal(
      ev.basis,
      "B was the only program running without a sandbox layer (--unsandboxed) when nodes/A changed; " +
        "no layer saw the write itself",
    );
    deepEqual(ev.attempts, [{ path: "nodes/A/evil.txt", op: "write", stopped_by: null, reverted: true }]);
    equal(r.state.nodes.B!.status, "blocked");
  } finally {
    await Deno.remove(r.dir, { recursive: true });
  }
});

/** A finishes; its acceptance check rewrites the claim in the scope it judges (a check only reads). */
const acceptOwnScope = () =>
  planOf([{
    id: "A",
    kind: "fast",
    role: "other",
    worker: { type: "command", argv: ["sh", "-c", done("A")] },
    acceptance: ["sh", "-c", `printf '{"node":"A","score":0.999}' > results.json`],
  }]);

Deno.test("without bubblewrap, an acceptance check that rewrites the scope it judges is seen by its scans", async () => {
  const plan = acceptOwnScope();
  const r = await runReal("accept_own_scope_bare", plan, [], { bwrap: null });
  try {
    deepEqual(r.triples, [["SCOPE_VIOLATION", "A", "blame_routing"]]);
    const ev = r.incidents[0]!.evidence as { writer: string; attempts: Attempt[] };
    equal(ev.writer, "A");
    deepEqual(ev.attempts, [{
      path: "nodes/A/results.json",
      op: "write",
      stopped_by: null,
      reverted: false,
      seen_in: "the scope before and after the acceptance check",
    }]);
  } finally {
    await Deno.remove(r.dir, { recursive: true });
  }
});

Deno.test({
  name:
    "an acceptance check that rewrites the scope it judges writes a copy: seen, blamed, the scope untouched",
  ignore: ignored,
  fn: async () => {
    const plan = acceptOwnScope();
    const r = await runReal("accept_own_scope", plan, [], { bwrap: BWRAP });
    try {
      deepEqual(r.triples, [["SCOPE_VIOLATION", "A", "blame_routing"]]);
      deepEqual((r.incidents[0]!.evidence as { attempts: Attempt[] }).attempts, [
        { path: "nodes/A/results.json", op: "write", stopped_by: "bwrap-shadow", reverted: false },
      ]);
      equal(Deno.readTextFileSync(`${r.dir}/nodes/A/results.json`), `{"node":"A"}`);
    } finally {
      await Deno.remove(r.dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "a secret file under $HOME reads empty; a write to it and an edit of ~/.bashrc are seen, the host untouched",
  ignore: ignored,
  fn: async () => {
    const home = await Deno.makeTempDir({ prefix: "arrow-refused-home-" });
    const secret = "machine example.com login me password hunter2\n";
    Deno.writeTextFileSync(`${home}/.netrc`, secret);
    Deno.writeTextFileSync(`${home}/.bashrc`, "export PS1=x\n");
    const was = Deno.env.get("HOME");
    Deno.env.set("HOME", home);
    const plan = planOf([{
      id: "W",
      kind: "fast",
      role: "other",
      worker: {
        type: "command",
        argv: [
          "sh",
          "-c",
          [
            `cat ${home}/.netrc > seen.txt`,
            `echo 'machine evil' >> ${home}/.netrc`,
            `echo 'alias ls=rm' >> ${home}/.bashrc`,
            done("W"),
          ].join("; "),
        ],
      },
    }]);
    let dir = "";
    try {
      const r = await runReal("secret_file", plan, [], { bwrap: BWRAP });
      dir = r.dir;
      equal(Deno.readTextFileSync(`${r.dir}/nodes/W/seen.txt`), "", "the secret's content stays hidden");
      deepEqual(r.triples, [["SCOPE_VIOLATION", "W", "blame_routing"]]);
      const attempts = (r.incidents[0]!.evidence as { attempts: Attempt[] }).attempts;
      deepEqual(attempts.map((a) => [a.path, a.op, a.stopped_by]).sort(), [
        [`${home}/.bashrc`, "write", "bwrap-shadow"],
        [`${home}/.netrc`, "write", "bwrap-shadow"],
      ]);
      equal(Deno.readTextFileSync(`${home}/.netrc`), secret);
      equal(Deno.readTextFileSync(`${home}/.bashrc`), "export PS1=x\n");
    } finally {
      if (was === undefined) Deno.env.delete("HOME");
      else Deno.env.set("HOME", was);
      if (dir) await Deno.remove(dir, { recursive: true });
      // A Deno child the run started with this HOME may still be writing its cache there (~/.cache/deno) as
      // the tree goes: a second pass removes what it wrote meanwhile.
      await Deno.remove(home, { recursive: true }).catch(() => Deno.remove(home, { recursive: true }));
    }
  },
});
