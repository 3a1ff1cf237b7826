/**
 * Benchmark of the live path's own costs, against a scripted OpenAI-compatible server on 127.0.0.1 (so the
 * model's think time is ~0 and what remains is Arrow): the overhead per agent step (client call, sandbox
 * start of one command under bubblewrap when present, transcript and usage recording; goal ≤ 50 ms), and
 * the latency the proxy adds per call over calling the upstream directly (goal ≤ 5 ms at p50).
 *
 * Usage: deno task bench:llm [--steps N] [--calls N]
 *
 * @module
 */
import { parseArgs } from "node:util";
import { runAgent } from "../src/llm/agent.ts";
import { LlmClient } from "../src/llm/client.ts";
import type { AgentConfig } from "../src/llm/config.ts";
import { runCommand } from "../src/llm/exec.ts";
import { startProxy } from "../src/llm/proxy.ts";
import { startScriptedServer } from "../tests/llm/scripted_server.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { steps: { type: "string" }, calls: { type: "string" } },
});
const STEPS = Number(values.steps ?? 60);
const CALLS = Number(values.calls ?? 300);
const KEY = "bench-key-0123456789";

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};
const ms = (x: number) => `${x.toFixed(2)} ms`;

function bwrapPrefix(scope: string): string[] | null {
  try {
    const probe = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-all", "--", "true"];
    if (!new Deno.Command("bwrap", { args: probe, stdout: "null", stderr: "null" }).outputSync().success) {
      return null;
    }
  } catch {
    return null;
  }
  return [
    "bwrap",
    ...["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--bind", scope, scope],
    ...["--unshare-all", "--die-with-parent", "--new-session", "--chdir", scope, "--"],
  ];
}

/** Runs STEPS agent steps (each: one call, one `true` command, records) and splits the time per step. */
async function agentSteps(sandboxed: boolean) {
  const dir = await Deno.makeTempDir({ prefix: "arrow-bench-llm-" });
  try {
    const scope = `${dir}/nodes/N3`;
    await Deno.mkdir(scope, { recursive: true });
    const sandbox = sandboxed ? bwrapPrefix(scope) : [];
    if (!sandbox) return null;
    await using server = await startScriptedServer({ rules: [{ reply: "```bash\ntrue\n```" }] });
    const client = new LlmClient({ baseUrl: server.url, apiKey: KEY, maxRetries: 0 });
    const cfg: AgentConfig = {
      node: "N3",
      role: "baseline",
      kind: "fast",
      scope,
      nodes: `${dir}/nodes`,
      inputs: {},
      sources: {},
      protocol: { version: "p1", metric: "dev_r2", direction: "maximize" },
      args: { prompt: "Benchmark.", max_steps: STEPS },
      faults: [],
      attempt: 1,
      lap: 1,
      resume: null,
      sandbox,
      usage: `${dir}/.arrow/usage/N3.jsonl`,
      transcript: `${dir}/logs/agent/N3.jsonl`,
    };
    const call: number[] = [];
    const exec: number[] = [];
    const stepStart: number[] = [];
    const started = performance.now();
    await runAgent(cfg, {
      model: "bench",
      env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" },
      client: {
        async chat(req, o) {
          stepStart.push(performance.now());
          const t = performance.now();
          const r = await client.chat(req, o);
          call.push(performance.now() - t);
          return r;
        },
      },
      async exec(argv, o) {
        const t = performance.now();
        const r = await runCommand(argv, o);
        exec.push(performance.now() - t);
        return r;
      },
    });
    const total = performance.now() - started;
    stepStart.push(started + total);
    const step = stepStart.slice(1).map((t, i) => t - stepStart[i]!);
    const record = step.map((s, i) => s - (call[i] ?? 0) - (exec[i] ?? 0));
    // The machine's own floor: the same process started bare, with no Arrow around it.
    const floor: number[] = [];
    const argv = [...sandbox, "bash", "-c", "true"];
    for (let i = 0; i < 20; i++) {
      const t = performance.now();
      await new Deno.Command(argv[0]!, { args: argv.slice(1), cwd: scope, stdout: "null", stderr: "null" })
        .output();
      floor.push(performance.now() - t);
    }
    return { step, call, exec, record, floor };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function proxyLatency() {
  const dir = await Deno.makeTempDir({ prefix: "arrow-bench-proxy-" });
  try {
    await Deno.writeTextFile(
      `${dir}/plan.yaml`,
      "question: Q?\nprotocol: { version: p1, metric: m, direction: maximize }\nnodes:\n" +
        "  - { id: N3, kind: fast, role: baseline, budget: { tokens: 1000000000 } }\n",
    );
    await using upstream = await startScriptedServer({ rules: [{ reply: "x".repeat(400), chunk: 40 }] });
    await using proxy = await startProxy({ runDir: dir, upstream: upstream.url, apiKey: KEY, port: 0 });
    const body = (stream: boolean) =>
      JSON.stringify({ model: "m", stream, messages: [{ role: "user", content: "benchmark ".repeat(50) }] });
    const once = async (base: string, stream: boolean) => {
      const t = performance.now();
      const res = await fetch(`${base}/chat/completions`, {
        method: "POST",
        headers: { authorization: "Bearer arrow:N3", "content-type": "application/json" },
        body: body(stream),
      });
      await res.arrayBuffer();
      return performance.now() - t;
    };
    const out: Record<string, { direct: number[]; proxied: number[] }> = {};
    for (const stream of [false, true]) {
      const direct: number[] = [];
      const proxied: number[] = [];
      for (let i = 0; i < 30; i++) await once(upstream.url, stream), await once(proxy.url, stream);
      // Interleaved, so both see the same machine load.
      for (let i = 0; i < CALLS; i++) {
        direct.push(await once(upstream.url, stream));
        proxied.push(await once(proxy.url, stream));
      }
      out[stream ? "streaming" : "whole"] = { direct, proxied };
    }
    return out;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

console.log(
  `bench:llm — ${STEPS} agent steps, ${CALLS} proxy calls per mode, scripted server on 127.0.0.1\n`,
);
for (const sandboxed of [true, false]) {
  const r = await agentSteps(sandboxed);
  const label = sandboxed ? "agent step, bubblewrap sandbox" : "agent step, no sandbox        ";
  if (!r) {
    console.log(`${label}: skipped (bubblewrap is not available)`);
    continue;
  }
  const p50 = pct(r.step, 50);
  const floor = pct(r.floor, 50);
  console.log(
    `${label}: p50 ${ms(p50)} p90 ${ms(pct(r.step, 90))} — call ${ms(pct(r.call, 50))}, command ${
      ms(pct(r.exec, 50))
    } (the bare process start alone: ${ms(floor)}), recording+loop ${ms(pct(r.record, 50))}; ` +
      `beyond the bare process start: ${ms(p50 - floor)} (goal ≤ 50 ms per step: ${
        p50 <= 50 ? "met" : "MISSED"
      })`,
  );
}
const proxy = await proxyLatency();
for (const [mode, { direct, proxied }] of Object.entries(proxy)) {
  const added = pct(proxied, 50) - pct(direct, 50);
  console.log(
    `proxy, ${mode.padEnd(9)}: direct p50 ${ms(pct(direct, 50))}, via proxy p50 ${
      ms(pct(proxied, 50))
    } → added ${ms(added)} at p50, ${ms(pct(proxied, 90) - pct(direct, 90))} at p90 (goal ≤ 5 ms at p50: ${
      added <= 5 ? "met" : "MISSED"
    })`,
  );
}
