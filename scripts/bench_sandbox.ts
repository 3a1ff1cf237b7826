/**
 * Sandbox start cost against the size of /tmp (`deno task bench:sandbox`): the layout of one sandboxed
 * start (runtime/sandbox/bwrap.ts) and bubblewrap running `true` in it, with /tmp holding 10 and 5,000 extra
 * top-level entries — the lean /tmp (never listed) beside the old way of listing /tmp and binding back each
 * entry. Prints the median of `--repeats` starts per case, in ms, and the argv length.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { bwrapLayout, findBwrap } from "../src/runtime/sandbox/bwrap.ts";

const { values } = parseArgs({ args: Deno.args, options: { repeats: { type: "string", default: "15" } } });
const repeats = Number(values.repeats);
const bwrap = await findBwrap();
if (!bwrap) {
  console.log("bench_sandbox: bubblewrap is not installed (apt-get install -y bubblewrap)");
  Deno.exit(0);
}
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
 * files given as copies) and the secrets under $HOME masked, as a command worker starts.
 */
type How = "lean" | "listed" | "lanes" | "full";

async function start(how: How): Promise<{ ms: number; argv: number }> {
  const t0 = performance.now();
  const lean = how !== "listed";
  const lanes = how === "lanes" || how === "full";
  const full = how === "full";
  const home = Deno.env.get("HOME") ?? null;
  const { args } = bwrapLayout({
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
  });
  const out = await new Deno.Command(bwrap!, { args: [...args, "--", "true"], stderr: "null" }).output();
  if (!out.success) throw new Error("bwrap did not start");
  return { ms: performance.now() - t0, argv: args.length };
}

const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
try {
  console.log("entries  layout  median_ms  argv");
  for (const n of [10, 5_000]) {
    setEntries(n);
    for (const how of ["lean", "listed", "lanes", "full"] as const) {
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
      console.log(`${String(n).padStart(7)}  ${how.padEnd(6)}  ${note.padStart(9)}  ${argv}`);
    }
  }
} finally {
  for (const d of extra) Deno.removeSync(d, { recursive: true });
  Deno.removeSync(planDir, { recursive: true });
}
