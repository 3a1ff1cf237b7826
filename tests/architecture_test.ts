/**
 * Structural laws, checked on the source: the supervisor alone changes statuses and writes incidents; the
 * supervision path has no clock and no randomness; thresholds live in one module; rooms import one way; one
 * CSV reader; one child watcher; one report renderer.
 */
import { deepEqual, equal } from "node:assert/strict";
import { ROOT } from "./helpers/cli.ts";

function files(dir: string): string[] {
  const out: string[] = [];
  for (const d of Deno.readDirSync(`${ROOT}${dir}`)) {
    const p = `${dir}/${d.name}`;
    if (d.isDirectory) out.push(...files(p));
    else if (p.endsWith(".ts") && !p.endsWith("_test.ts") && !p.endsWith(".gen.ts")) out.push(p);
  }
  return out.sort();
}

const SRC = files("src");
const text = (p: string) => Deno.readTextFileSync(`${ROOT}${p}`);

Deno.test("only the supervisor constructs status and incident events", () => {
  const makers = SRC.filter((p) => /\be:\s*"(status|incident)"\s*,/.test(text(p)));
  deepEqual(makers, ["src/overwatch/supervisor.ts"]);
});

Deno.test("one incident constructor for both modes: overwatch/incident.ts builds every incident record", () => {
  // An incident record is an object with its rung and its evidence side by side; only incidentOf writes one,
  // so tree mode's incidents have the graph path's shape by construction.
  const builders = SRC.filter((p) =>
    /\bladder\b[,:][^;{}]*\bevidence\b[,:][^;{}]*\blaps\b[,:]/s.test(text(p))
  );
  deepEqual(builders, ["src/overwatch/incident.ts"]);
  for (const p of ["src/overwatch/supervisor.ts", "src/tree/overwatch.ts"]) {
    equal(/incidentOf\(/.test(text(p)), true, `${p} raises incidents through incidentOf`);
  }
});

Deno.test("only the reducer assigns a node's status, and only from a status event", () => {
  const nodeStatus = String
    .raw`(nodes\[[^\]]*\]!?|ns|node|n)\.status\s*=[^=]|status:\s*"(running|verified|blocked)"`;
  const writers = SRC.filter((p) => new RegExp(nodeStatus).test(text(p)));
  deepEqual(writers, ["src/model/reduce.ts"]);
  equal((text("src/model/reduce.ts").match(new RegExp(nodeStatus, "g")) ?? []).length, 1);
});

Deno.test("a note event cannot carry a status", () => {
  const events = text("src/model/events.ts");
  equal(
    /NodeNote = Partial<Omit<NodeState, "status" \| "spawned" \| "ckpts" \| "delivered">>/.test(events),
    true,
  );
});

Deno.test("the supervision path reads no clock and draws no random numbers", () => {
  const path = SRC.filter((p) =>
    /^src\/(overwatch|gates|model|graph)\//.test(p) ||
    /^src\/engine\/(step|decide|flow|admit|prepare)\.ts$/.test(p)
  );
  for (const p of path) {
    equal(/Date\.now|new Date|performance\.now|Math\.random|crypto\.getRandom/.test(text(p)), false, p);
  }
});

Deno.test("thresholds are defined in one module only", () => {
  for (
    const name of [
      "K_FREEZE",
      "PLATEAU_EPS",
      "PLATEAU_PATIENCE",
      "HUNG_MAX_RESTARTS",
      "ACCEPT_MAX_LAPS",
      "ACCEPT_EPS",
    ]
  ) {
    const definers = SRC.filter((p) => new RegExp(`\\b(const|let|var)\\s+${name}\\b`).test(text(p)));
    deepEqual(definers, ["src/thresholds.ts"], name);
  }
  const t = text("src/thresholds.ts");
  const pinned: [string, string][] = [
    ["K_FREEZE", "3"],
    ["PLATEAU_EPS", "0.005"],
    ["PLATEAU_PATIENCE", "2"],
    ["HUNG_MAX_RESTARTS", "1"],
    ["ACCEPT_MAX_LAPS", "3"],
    ["ACCEPT_EPS", "0.003"],
  ];
  for (const [name, v] of pinned) {
    equal(new RegExp(`export const ${name} = ${v.replace(".", "\\.")};`).test(t), true, `${name} = ${v}`);
  }
});

/** Which rooms each room may import (thresholds.ts and tabular/prng.ts are leaves everyone may use). */
const ALLOWED: Record<string, string[]> = {
  graph: [],
  model: ["graph"],
  gates: ["graph", "model"],
  overwatch: ["graph", "gates", "model"],
  record: ["graph", "model", "overwatch", "runtime"],
  runtime: ["graph", "model", "workers", "llm"],
  workers: ["graph", "llm", "tabular", "runtime"],
  sdk: [],
  llm: ["graph", "model"],
  tabular: [],
  engine: ["graph", "model", "gates", "overwatch", "record", "runtime"],
  server: ["graph", "model", "record", "runtime", "tree"],
  tree: ["engine", "gates", "record", "runtime", "graph", "model", "overwatch", "tabular", "llm"],
  cli: ["*"],
};

Deno.test("rooms import one way", () => {
  const problems: string[] = [];
  for (const p of SRC) {
    const room = p.split("/")[1]!;
    if (!room.endsWith(".ts") && !(room in ALLOWED)) continue;
    const allowed = ALLOWED[room.replace(/\.ts$/, "")] ?? ["*"];
    for (const m of text(p).matchAll(/(?:from|import\()\s*"(\.[^"]+)"/g)) {
      const target = new URL(m[1]!, `file://${ROOT}${p}`).pathname.slice(ROOT.length);
      const parts = target.split("/");
      if (parts[0] === "scripts") {
        problems.push(`${p} imports ${target}: product code never imports scripts/ (developer tools only)`);
        continue;
      }
      if (parts[0] !== "src") continue;
      const other = parts[1]!.replace(/\.ts$/, "");
      if (target === "src/tabular/prng.ts") continue; // the one seeded random source, a leaf like thresholds.ts
      if (other === room || other === "thresholds" || allowed.includes("*") || allowed.includes(other)) {
        continue;
      }
      if (parts[0] === "src" && parts.length === 2) continue;
      problems.push(`${p} imports ${target}`);
    }
  }
  deepEqual(problems, []);
});

Deno.test("outside runtime/, its folders are imported through their mod.ts faces (child programs excepted)", () => {
  // The worker programs and the tree harness run as children that load one file alone, by relative path.
  const exempt = /^src\/(workers|sdk)\/|^src\/tree\/execute\/harness\//;
  const problems: string[] = [];
  for (const p of SRC.filter((p) => !p.startsWith("src/runtime/") && !exempt.test(p))) {
    for (const m of text(p).matchAll(/(?:from|import\()\s*"(\.[^"]+\.ts)"/g)) {
      const target = new URL(m[1]!, `file://${ROOT}${p}`).pathname.slice(ROOT.length);
      if (/^src\/runtime\/(proc|backend|scope|sandbox|accept|slurm)\/(?!mod\.ts$)/.test(target)) {
        problems.push(`${p} imports ${target}`);
      }
    }
  }
  deepEqual(problems, []);
});

Deno.test("outside tree/, tree mode is imported through its face, tree/mod.ts", () => {
  // Exceptions: the harness's entry for a self-executing arrow (a child program, loaded alone by
  // `arrow __worker tree_harness`); the dashboard (ui/) bundles the tree's pure step function for the browser.
  const problems: string[] = [];
  for (const p of SRC.filter((p) => !p.startsWith("src/tree/"))) {
    for (const m of text(p).matchAll(/(?:from|import\()\s*"(\.[^"]+\.ts)"/g)) {
      const target = new URL(m[1]!, `file://${ROOT}${p}`).pathname.slice(ROOT.length);
      if (!target.startsWith("src/tree/") || target === "src/tree/mod.ts") continue;
      if (p === "src/cli/main.ts" && target === "src/tree/execute/harness/lane.ts") continue;
      problems.push(`${p} imports ${target}`);
    }
  }
  deepEqual(problems, []);
});

/** Every test file, the helpers included (the suite's own code, not the product's). */
function testFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const d of Deno.readDirSync(`${ROOT}${dir}`)) {
      const p = `${dir}/${d.name}`;
      if (d.isDirectory) {
        if (!/^tests\/(fixtures|golden|output|corpus)$/.test(p)) walk(p);
      } else if (/\.tsx?$/.test(p) && (p.startsWith("tests/") || p.endsWith("_test.ts"))) out.push(p);
    }
  };
  walk("tests");
  walk("src");
  return out.sort();
}

Deno.test("tests find out what the machine lacks in one helper, which never throws", () => {
  // A module-level `new Deno.Command("bwrap")` throws NotFound on a fresh machine before any test runs, so a
  // missing program must be asked about through tests/helpers/needs.ts (or the Slurm helper), never probed
  // by hand; a chromium path named elsewhere skips the helper's printed reason.
  const probes = testFiles().filter((p) =>
    p !== "tests/helpers/needs.ts" && p !== "tests/architecture_test.ts" &&
    /Command\(\s*"(bwrap|chromium|sbatch|sinfo|slurmctld)"|"\/usr\/bin\/chromium"/.test(text(p))
  );
  deepEqual(probes, []);
});

Deno.test("one source for each mechanism: the PRNG, SlurmOptions, the LLM client, the Deno cache", () => {
  const all = [...SRC, ...testFiles(), ...files("scripts")].filter((p) => p !== "tests/architecture_test.ts");
  const definers = (re: RegExp) => all.filter((p) => re.test(text(p)));
  deepEqual(definers(/function mulberry32\b/), ["src/tabular/prng.ts"]);
  // The generator itself, by its constant: a copy under another name is still a second PRNG.
  deepEqual(definers(/0x6d2b79f5/i), ["src/tabular/prng.ts"]);
  deepEqual(definers(/interface Slurm(Job)?Options\b/), ["src/graph/types.ts"]);
  deepEqual(SRC.filter((p) => /new LlmClient\(/.test(text(p))), ["src/llm/connect.ts"]);
  deepEqual(definers(/function denoDir\b/), ["src/runtime/backend/box.ts", "tests/helpers/hostile.ts"]);
  // A hypothesis family is one entry of tree/ideate/families.ts: the Family type is that table's keys.
  deepEqual(SRC.filter((p) => /export type Family\s*=/.test(text(p))), ["src/tree/ideate/families.ts"]);
  deepEqual(SRC.filter((p) => /(HELPED|HURT|PRIOR): Record<Family/.test(text(p))), []);
});

Deno.test("one sandbox builder: layout.ts lays out every sandbox, rendered for bubblewrap or a namespace", () => {
  const builders = SRC.filter((p) => /"--(ro-bind|bind|tmpfs|unshare-all|ro-bind-try)"/.test(text(p)));
  deepEqual(builders, ["src/runtime/sandbox/bwrap.ts"]);
  // The watch-only namespace's mount commands are written in one renderer too, from the same layout.
  deepEqual(SRC.filter((p) => /\s--bind\b/.test(text(p))), ["src/runtime/sandbox/namespace.ts"]);
  deepEqual(SRC.filter((p) => /\bplanLayout\(/.test(text(p))).sort(), [
    "src/runtime/sandbox/bwrap.ts",
    "src/runtime/sandbox/layout.ts",
    "src/runtime/sandbox/namespace.ts",
  ]);
});

Deno.test("one CSV reader: only src/tabular/csv.ts tokenizes CSV, and both modes and the workers read through it", () => {
  deepEqual([...SRC, ...files("scripts")].filter((p) => /class CsvError\b/.test(text(p))), [
    "src/tabular/csv.ts",
  ]);
  deepEqual(SRC.filter((p) => p.split("/").pop() === "csv.ts"), ["src/tabular/csv.ts"]);
  // What a hand-made tokenizer does: strip a BOM, split the text into lines, split a line at commas.
  const byHand = /\\uFEFF|0xfeff|split\(\/\\r\?\\n\/\)|\.split\(","\)\.map\(/i;
  deepEqual(SRC.filter((p) => byHand.test(text(p))), ["src/tabular/csv.ts"]);
  // arrow run's up-front check and every real worker read numbers with the one numeric reader on top of it.
  deepEqual(SRC.filter((p) => p !== "src/tabular/numeric.ts" && /parseNumericCsv\(/.test(text(p))), [
    "src/cli/data.ts",
    "src/workers/real/data.ts",
    "src/workers/real/drop_noisy.ts",
    "src/workers/real/make_data.ts",
  ]);
  equal(/from "\.\/csv\.ts"/.test(text("src/tabular/numeric.ts")), true);
});

Deno.test("no import circles among the product's files (type imports included)", () => {
  const graph = new Map<string, string[]>();
  for (const p of SRC) {
    const out: string[] = [];
    for (const m of text(p).matchAll(/(?:from|import\()\s*"(\.[^"]+\.tsx?)"/g)) {
      out.push(new URL(m[1]!, `file://${ROOT}${p}`).pathname.slice(ROOT.length));
    }
    // A file naming itself is a usage example in its doc comment, not an import.
    graph.set(p, out.filter((t) => t !== p && SRC.includes(t)));
  }
  const state = new Map<string, "open" | "done">();
  const circles: string[] = [];
  const visit = (p: string, path: string[]) => {
    state.set(p, "open");
    for (const t of graph.get(p) ?? []) {
      if (state.get(t) === "open") circles.push([...path.slice(path.indexOf(t)), t].join(" → "));
      else if (!state.has(t)) visit(t, [...path, t]);
    }
    state.set(p, "done");
  };
  for (const p of SRC) if (!state.has(p)) visit(p, [p]);
  deepEqual(circles, []);
});

Deno.test("one child watcher: runtime/proc/watch.ts alone keeps a hang clock and reads CPU wait, for both modes", () => {
  const WATCH = "src/runtime/proc/watch.ts";
  // A hang window is K_FREEZE observation periods of wall time, postponed by the CPU wait it reads.
  deepEqual(SRC.filter((p) => /K_FREEZE \*|\* K_FREEZE/.test(text(p))), [WATCH]);
  deepEqual(SRC.filter((p) => /new CpuWait\(/.test(text(p))), [WATCH]);
  deepEqual(SRC.filter((p) => /class \w*Clock\b|observeMs, 200\)/.test(text(p))), [WATCH]);
  // The graph path paces observations with it; tree mode's children, slots and Slurm jobs read their silence off it.
  deepEqual(SRC.filter((p) => p !== WATCH && /\b(HangClock|RunClock)\b/.test(text(p))), [
    "src/runtime/sense.ts",
    "src/runtime/world.ts",
    "src/tree/execute/child.ts",
    "src/tree/execute/job_child.ts",
    "src/tree/execute/slot_pool.ts",
  ]);
  // Every child tree mode starts is polled by the one watch loop: stopped at its hang, overrun or abort.
  deepEqual(SRC.filter((p) => p !== WATCH && /\bwatchLoop\(/.test(text(p))), [
    "src/tree/execute/child.ts",
    "src/tree/execute/job_child.ts",
    "src/tree/execute/slot_pool.ts",
  ]);
});

Deno.test("one report renderer: both modes' reports are laid out by record/render.ts, which alone writes headings and tables", () => {
  for (const p of ["src/record/report.ts", "src/tree/report.ts"]) {
    equal(/from "(\.\/|\.\.\/record\/)render\.ts"/.test(text(p)), true, `${p} imports the renderer`);
    equal(/renderDocument\(/.test(text(p)), true, `${p} is laid out by renderDocument`);
    equal(/blackBoxSection\(/.test(text(p)), true, `${p} renders incidents with the shared section`);
  }
  // Both LLM-use sections and both headlines live in one file each.
  equal(/export function ideatorUseSection\(/.test(text("src/record/usage_section.ts")), true);
  equal(/export function treeHeadline\(/.test(text("src/record/headline.ts")), true);
  // A title line, a heading or a table rule written by hand would be a second renderer.
  const rooms = SRC.filter((p) => /^src\/(record|tree|cli|server)\//.test(p));
  deepEqual(rooms.filter((p) => /["`](#|##) |"\|---/.test(text(p))), ["src/record/render.ts"]);
});

Deno.test("no product file in src/ runs past 400 lines: past that, a file is split along a real seam", () => {
  const long = SRC.filter((p) => text(p).split("\n").length - 1 > 400);
  deepEqual(long, []);
});
