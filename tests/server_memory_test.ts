/**
 * The dashboard's memory under slow clients, measured on a real `arrow serve` process: 16 clients open a
 * run's event stream and never read while the run appends ~140 MB of big events; one fast client reads
 * everything. The server's resident memory is sampled throughout and must stay under 300 MB (an unbounded
 * per-client queue would need 16 × 140 MB).
 *
 * @module
 */
import { equal, ok } from "node:assert/strict";
import { ROOT } from "./helpers/cli.ts";

const RSS_LIMIT_MB = 300;
const SLOW_CLIENTS = 16;
const LINES = 150;
const LINE_BYTES = 700 * 1024;
/** Every BIG_EVERY-th line is over the frame cap (announced, not sent). */
const BIG_EVERY = 10;
const BIG_BYTES = 4 * 1024 * 1024;

function rssMb(pid: number): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  return Number(status.match(/VmRSS:\s+(\d+) kB/)?.[1] ?? 0) / 1024;
}

const line = (tick: number, pad: number) =>
  JSON.stringify({ events: [{ e: "note", node: "N1", set: { log: "x".repeat(pad) } }], tick }) + "\n";

Deno.test({
  name: "arrow serve stays under 300 MB RSS with 16 slow event-stream clients on a run streaming big events",
  sanitizeOps: true,
  sanitizeResources: true,
  async fn() {
    const runsDir = Deno.makeTempDirSync({ prefix: "arrow-memory-test-" });
    const run = `${runsDir}/20260101-000000-big-0000`;
    Deno.mkdirSync(run);
    Deno.writeTextFileSync(`${run}/run.json`, JSON.stringify({ scenario: "big", mode: "mock" }));
    Deno.writeTextFileSync(`${run}/replay.jsonl`, line(0, 10));
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "--no-prompt",
        `${ROOT}src/cli/main.ts`,
        "serve",
        "--port",
        "0",
        "--runs-dir",
        runsDir,
      ],
      env: { NO_COLOR: "1", RUST_BACKTRACE: "0" },
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    const out = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let printed = "";
    while (!/http:\/\/127\.0\.0\.1:(\d+)\//.test(printed)) {
      const { value, done } = await out.read();
      if (done) throw new Error(`arrow serve ended early: ${printed}`);
      printed += value;
    }
    const port = Number(printed.match(/127\.0\.0\.1:(\d+)/)![1]);
    const path = `/api/runs/20260101-000000-big-0000/events`;
    const slow: Deno.TcpConn[] = [];
    let peak = 0;
    const sample = setInterval(() => peak = Math.max(peak, rssMb(child.pid)), 20);
    try {
      for (let i = 0; i < SLOW_CLIENTS; i++) {
        const c = await Deno.connect({ hostname: "127.0.0.1", port });
        await c.write(new TextEncoder().encode(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`));
        slow.push(c);
      }
      // One client that keeps up, to know when the server has streamed the last line.
      const fast = await fetch(`http://127.0.0.1:${port}${path}`);
      const reader = fast.body!.pipeThrough(new TextDecoderStream()).getReader();
      let appended = 0;
      for (let t = 1; t <= LINES; t++) {
        const text = line(t, t % BIG_EVERY === 0 ? BIG_BYTES : LINE_BYTES);
        Deno.writeTextFileSync(`${run}/replay.jsonl`, text, { append: true });
        appended += text.length;
      }
      let tail = "";
      let bigs = 0;
      let ticks = 0;
      while (!tail.includes(`id: ${LINES}\n`)) {
        const { value, done } = await reader.read();
        if (done) break;
        const chunk = tail + value;
        bigs += chunk.split("event: big\n").length - 1;
        ticks += chunk.split("event: tick\n").length - 1;
        tail = chunk.slice(-64);
      }
      await reader.cancel();
      const list = await fetch(`http://127.0.0.1:${port}/api/runs`);
      equal(list.status, 200, "the server still answers during the flood");
      await list.body?.cancel();
      peak = Math.max(peak, rssMb(child.pid));
      console.log(
        `  ${(appended / 1e6).toFixed(0)} MB appended, ${SLOW_CLIENTS} slow clients: ` +
          `peak server RSS ${peak.toFixed(0)} MB (limit ${RSS_LIMIT_MB})`,
      );
      ok(ticks + bigs >= LINES - 1, `the fast client saw ${ticks} ticks and ${bigs} big announcements`);
      ok(bigs >= 1, "lines over the cap are announced");
      ok(peak < RSS_LIMIT_MB, `peak RSS ${peak.toFixed(0)} MB`);
    } finally {
      clearInterval(sample);
      for (const c of slow) c.close();
      child.kill("SIGINT");
      await out.cancel();
      await child.status;
      Deno.removeSync(runsDir, { recursive: true });
    }
  },
});
