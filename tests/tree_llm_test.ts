/**
 * The LLM ideator against the scripted OpenAI-compatible server: a usable module is measured like any
 * hypothesis; code that throws or never returns, and a reply with no module at all, become
 * failed-informative nodes with their lessons — never a crash of arrow.
 *
 * @module
 */
import { equal, ok } from "node:assert/strict";
import { LlmClient } from "../src/llm/client.ts";
import { LlmIdeator, parseReplies, parseReply, SYSTEM_PROMPT } from "../src/tree/ideate/llm_ideator.ts";
import { startTree } from "../src/tree/run.ts";
import { type Script, startScriptedServer } from "./llm/scripted_server.ts";
import { fakeStart } from "./tree_fake.ts";

const CSV = new URL("./fixtures/tree/small.csv", import.meta.url).pathname;
const SCRIPT = JSON.parse(
  Deno.readTextFileSync(new URL("./fixtures/tree/llm_ideas.json", import.meta.url)),
) as Script;

Deno.test("the LLM ideator's hypotheses run as executors; failing, hanging and unusable ones become lessons", async () => {
  await using server = await startScriptedServer(SCRIPT);
  const runsDir = Deno.makeTempDirSync({ prefix: "arrow-tree-llm-" });
  try {
    const client = new LlmClient({ baseUrl: server.url, apiKey: "test-key", maxRetries: 0 });
    const calls: { problem: string | null }[] = [];
    const out = await startTree({
      runDir: `${runsDir}/run`,
      runsDir,
      data: CSV,
      target: "label",
      cycles: 1,
      executors: 4,
      seed: 0,
      ideator: "llm",
      llm: new LlmIdeator(client, { model: "scripted", log: (r) => calls.push(r) }),
      search: "tree",
      insights: true,
      observeMs: 1000,
      wallMs: 60_000,
      bwrap: null,
    });
    const s = out.state;
    equal(server.calls, 4);
    const prompt = JSON.stringify(server.requests[0]!.body);
    for (const want of ['\\"x1\\"', '\\"group\\"', 'Target \\"label\\"', "nothing (the raw columns)"]) {
      ok(prompt.includes(want), `the prompt describes the data: ${want}`);
    }
    const nodes = s.order.slice(1).map((id) => s.nodes[id]!);
    const byText = (t: string) => nodes.find((n) => n.hypothesis?.text.includes(t))!;

    const good = byText("ratio x1 / x2");
    ok(good.dev, "the usable module was measured");
    equal(good.hypothesis!.family, "ratio");
    equal(good.hypothesis!.columns.join(), "x1,x2", "columns the data does not have are dropped");
    ok(
      good.hypothesis!.step!.source.includes(`from "${s.config.toolkit}"`),
      "the tabular import points at the toolkit",
    );
    ok(good.tokens > 0, "the tokens the call cost are recorded");

    const threw = byText("cabin deck");
    equal(threw.status, "failed-informative");
    ok(threw.lesson?.includes("cabin"), threw.lesson ?? "");

    const unusable = nodes.find((n) => n.lesson?.includes("no JSON object"));
    ok(unusable, "an unusable reply is a failed node saying why");
    equal(unusable!.status, "failed-informative");

    const hung = byText("converge");
    equal(hung.status, "failed-informative");
    equal(out.incidents.filter((i) => i.node === hung.id && i.type === "HUNG_RESTART").length, 2);
    equal(calls.filter((c) => c.problem).length, 1);
    ok(s.verdict === "RESEARCH ANSWERED" || s.verdict === "NEGATIVE RESULT");
  } finally {
    Deno.removeSync(runsDir, { recursive: true });
  }
});

Deno.test("parseReply() refuses replies without a usable module, saying why", () => {
  const s = fakeStart();
  const root = s.nodes.n0!;
  const cases: [string, RegExp][] = [
    ["no json here", /no JSON object/],
    ['{"hypothesis": "x"}', /no module/],
    ['{"hypothesis": "x", "module": "const a = 1;"}', /no default export/],
    [
      `{"hypothesis": "x", "module": ${JSON.stringify("export default 1;" + " ".repeat(40_000))}}`,
      /over 32768 characters/,
    ],
    ['{"module": "export default {}"}', /no hypothesis/],
  ];
  for (const [reply, want] of cases) {
    const r = parseReply(s, root, reply, 0);
    equal(r.ok, false);
    if (!r.ok) ok(want.test(r.problem), r.problem);
  }
});

Deno.test("parseReplies() takes model changes and several hypotheses a reply, each checked like an artifact's", () => {
  const s = fakeStart();
  const root = s.nodes.n0!;
  ok(SYSTEM_PROMPT.includes('"model": {<settings>}') && SYSTEM_PROMPT.includes('{"hypotheses": ['));
  const reply = JSON.stringify({
    hypotheses: [
      { hypothesis: "Slower learning, more stages.", model: { learningRate: 0.05, stages: 300 } },
      { hypothesis: "A ridge model.", model: { kind: "linear", alpha: 3 } },
      { hypothesis: "Depth 99.", model: { maxDepth: 99 } },
      { hypothesis: "Reseed it.", model: { seed: 7 } },
      { hypothesis: "Nothing.", model: {} },
      "not an object",
    ],
  });
  const r = parseReplies(s, root, reply, 120);
  equal(r.hypotheses.length, 2);
  const [gbdt, linear] = r.hypotheses;
  equal(gbdt!.family, "capacity");
  equal(JSON.stringify(gbdt!.model), '{"learningRate":0.05,"stages":300}');
  equal(gbdt!.step, null);
  equal(gbdt!.tokens, 120, "the call's tokens go to the first hypothesis");
  equal(linear!.family, "linear_model");
  equal(JSON.stringify(linear!.model), '{"kind":"linear","alpha":3}');
  equal(linear!.tokens, 0);
  equal(r.problems.length, 4);
  ok(/hypothesis 3: Cannot use GBDT maxDepth 99/.test(r.problems[0]!), r.problems[0]);
  ok(/hypothesis 4: the model has no setting seed/.test(r.problems[1]!), r.problems[1]);
  ok(/hypothesis 5: the model changes nothing/.test(r.problems[2]!), r.problems[2]);
  ok(/hypothesis 6: .*not a JSON object/.test(r.problems[3]!), r.problems[3]);
  // A single object still works, and the same change twice is one key.
  const one = parseReply(
    s,
    root,
    '{"hypothesis": "Slower.", "model": {"stages": 300, "learningRate": 0.05}}',
    0,
  );
  ok(one.ok && one.hypothesis.key === gbdt!.key);
});

Deno.test("an LLM's model changes, several in one reply, run as executors like the library's", async () => {
  const reply = JSON.stringify({
    hypotheses: [
      { hypothesis: "Shallower trees with more stages.", model: { maxDepth: 2, stages: 150 } },
      { hypothesis: "A ridge model on the encoded features.", model: { kind: "linear", alpha: 1 } },
    ],
  });
  await using server = await startScriptedServer({
    rules: [{ when: { system: "ideator of Arrow's tree mode" }, reply }],
  });
  const runsDir = Deno.makeTempDirSync({ prefix: "arrow-tree-llm-model-" });
  try {
    const client = new LlmClient({ baseUrl: server.url, apiKey: "test-key", maxRetries: 0 });
    const out = await startTree({
      runDir: `${runsDir}/run`,
      runsDir,
      data: CSV,
      target: "label",
      cycles: 1,
      executors: 2,
      seed: 0,
      ideator: "llm",
      llm: new LlmIdeator(client, { model: "scripted" }),
      search: "tree",
      insights: true,
      observeMs: 1000,
      wallMs: 60_000,
      bwrap: null,
    });
    const s = out.state;
    equal(server.calls, 1, "one call brought both hypotheses");
    const kids = s.order.slice(1).map((id) => s.nodes[id]!);
    equal(kids.length, 2);
    const gbdt = kids.find((n) => n.hypothesis?.family === "capacity")!;
    const linear = kids.find((n) => n.hypothesis?.family === "linear_model")!;
    ok(gbdt.dev && linear.dev, "both were measured");
    equal(gbdt.artifact.model.maxDepth, 2);
    equal(gbdt.artifact.model.stages, 150);
    equal(linear.artifact.model.kind, "linear");
    equal(linear.artifact.steps.length, s.nodes.n0!.artifact.steps.length, "a model change adds no step");
  } finally {
    Deno.removeSync(runsDir, { recursive: true });
  }
});
