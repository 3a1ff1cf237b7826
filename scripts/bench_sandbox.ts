/**
 * Sandbox start cost against the size of /tmp (`deno task bench:sandbox`): the layout of one sandboxed
 * start (runtime/sandbox/layout.ts) and bubblewrap running `true` in it, with /tmp holding 10 and 5,000 extra
 * top-level entries — the lean /tmp (never listed) beside the old way of listing /tmp and binding back each
 * entry — and the same for an unconfined program's watch-only mount namespace (runtime/sandbox/namespace.ts,
 * unshare running `true`). Prints the median of `--repeats` starts per case, in ms, and the argv's size in bytes.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { bwrapLayout, findBwrap } from "../src/runtime/sandbox/bwrap.ts";
import { findUnshare, watchLayout } from "../src/runtime/sandbox/namespace.ts";

const { values } = parseArgs({ args: Deno.args, options: { repeats: { type: "string", default: "15" } } });
const repeats = Number(values.repeats);
const bwrap = await findBwrap();
const probe = await findUnshare();
const unshare = "why" in probe ? null : probe;
if (!bwrap) console.log("bench_sandbox: bubblewrap is not installed (apt-get install -y bubblewrap)");
if (!unshare) console.log(`bench_sandbox: no watch-only namespace: ${"why" in probe ? probe.why : ""}`);
// The common layout: plan.yaml and its evaluator beside runs/, this run among 50 others.
const planDir = Deno.makeTempDirSync({ prefix: "arrow-bench-sandbox-" });
Deno.writeTextFileSync(`${planDir}/plan.yaml`, "question: q\n");
Deno.writeTextFileSync(`${planDir}/evaluate.py`, "print(0.5)\n");
for (let i = 0; i < 50; i++) Deno.mkdirSync(`${planDir}/runs/other${i}/nodes`, { recursive: true });
const run = `${planDir}/runs/this`;
for (const n of ["a", "in", "src"]) Deno.mkdirSync(`${run}/nodes/${n}`, { recursive: true });
for (let i = 0; i < 20; i++) Deno.writeTextFileSync(`${run}/nodes/in/f${i}.csv`, "x\n".repeat(500));
for (let i = 0; i < 10; i++) Deno.writeTextFileSync(`${run}/nodes/src/ckpt${i}.json`, "{}");
const extra: string[] = [];

function setEntries(n: number) {
  while (extra.length < n) {
    const d = `/tmp/arrow-bench-entry-${extra.length}`;
    Deno.mkdirSync(d, { recursive: true });
    extra.push(d);
  }
}

/**
 * lean: /tmp never listed; listed: the old way, every /tmp entry bound back; lanes: lean with copied and
 * synced input lanes; full: lanes plus the real $HOME and project directory watched (their small top-level
 * files given as copies) and the secrets under $HOME masked, as a command worker starts. watch: an
 * unconfined program's namespace, /tmp (lean) and the other runs as shadows; watch-full: with the real
 * $HOME and project directory too, as an unconfined command worker starts.
 */
type How = "lean" | "listed" | "lanes" | "full" | "watch" | "watch-full";

async function start(how: How): Promise<{ ms: number; argv: number }> {
  const t0 = performance.now();
  const lean = how !== "listed";
  const lanes = how === "lanes" || how === "full";
  const full = how === "full" || how === "watch-full";
  const home = Deno.env.get("HOME") ?? null;
  const layout = {
    runDir: run,
    runsDir: `${planDir}/runs`,
    scope: `${run}/nodes/a`,
    readable: lanes ? [`${run}/nodes/in`, planDir, `${run}/nodes/src`] : [],
    copied: lanes ? [`${run}/nodes/in`, planDir] : [],
    synced: lanes ? [`${run}/nodes/src`] : [],
    writable: [],
    shadowRoot: `${run}/.arrow/shadow/a.${Math.random().toString(36).slice(2)}`,
    scopes: ["a", "in", "src"],
    watched: full ? ["/tmp", ...(home ? [home] : []), Deno.cwd()] : ["/tmp"],
    lean: lean ? ["/tmp"] : [],
    needed: [Deno.execPath()],
    home: full ? home : null,
  };
  const argv = how.startsWith("watch")
    ? [...watchLayout(unshare!, layout).prefix, "true"]
    : [bwrap!, ...bwrapLayout(layout).args, "--", "true"];
  const out = await new Deno.Command(argv[0]!, { args: argv.slice(1), stderr: "null" }).output();
  if (!out.success) throw new Error(`${argv[0]} did not start`);
  // In bytes: a namespace's mounts are one script argument.
  return { ms: performance.now() - t0, argv: argv.join(" ").length };
}

const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
try {
  console.log("entries  layout      median_ms  argv_bytes");
  for (const n of [10, 5_000]) {
    setEntries(n);
    const hows: How[] = [
      ...(bwrap ? ["lean", "listed", "lanes", "full"] as const : []),
      ...(unshare ? ["watch", "watch-full"] as const : []),
    ];
    for (const how of hows) {
      const times: number[] = [];
      let argv = 0;
      for (let i = 0; i < repeats; i++) {
        const r = await start(how).catch(() => null);
        if (r) {
          times.push(r.ms);
          argv = r.argv;
        }
      }
      const note = times.length ? `${median(times).toFixed(1)}` : "(starts failed)";
      console.log(`${String(n).padStart(7)}  ${how.padEnd(10)}  ${note.padStart(9)}  ${argv}`);
    }
  }
} finally {
  for (const d of extra) Deno.removeSync(d, { recursive: true });
  Deno.removeSync(planDir, { recursive: true });
}
