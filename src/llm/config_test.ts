import { equal, throws } from "node:assert/strict";
import { AgentConfigError, callId, parseAgentConfig } from "./config.ts";

const GOOD = {
  node: "N3",
  role: "baseline",
  kind: "fast",
  scope: "/r/nodes/N3",
  nodes: "/r/nodes",
  inputs: { N1: { scope: "/r/nodes/N1", role: "data" } },
  sources: {},
  protocol: { version: "p1", metric: "dev_r2", direction: "maximize" },
  args: { prompt: "Do it.", max_steps: 5 },
  faults: [],
  attempt: 1,
  lap: 1,
  resume: null,
  sandbox: ["bwrap", "--"],
  usage: "/r/.arrow/usage/N3.jsonl",
  transcript: "/r/logs/agent/N3.jsonl",
};

Deno.test("parseAgentConfig() accepts a complete config", () => {
  equal(parseAgentConfig(JSON.stringify(GOOD)).args.max_steps, 5);
});

Deno.test("parseAgentConfig() names the first bad field", () => {
  const bad = (over: Record<string, unknown>, field: string) =>
    throws(() => parseAgentConfig(JSON.stringify({ ...GOOD, ...over })), (e: Error) => {
      equal(e instanceof AgentConfigError, true);
      equal(e.message.includes(`"${field}"`), true, e.message);
      return true;
    });
  bad({ scope: "nodes/N3" }, "scope");
  bad({ args: { prompt: "" } }, "args.prompt");
  bad({ args: { prompt: "x", max_steps: 0 } }, "args.max_steps");
  bad({ protocol: { version: "p", metric: "m", direction: "up" } }, "protocol.direction");
  bad({ inputs: { N1: { scope: "rel", role: "data" } } }, "inputs.N1");
  bad({ attempt: 0 }, "attempt");
  throws(() => parseAgentConfig(undefined), /ARROW_CONFIG is not set/);
});

Deno.test("callId() is node:attempt:step", () => {
  equal(callId("N3", 2, 7), "N3:2:7");
});
