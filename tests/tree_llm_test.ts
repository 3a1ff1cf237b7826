/**
 * The LLM ideator against the scripted OpenAI-compatible server: a usable module is measured like any
 * hypothesis; code that throws or never returns, and a reply with no module at all, become
 * failed-informative nodes with their lessons — never a crash of arrow.
 *
 * @module
 */
import { equal, ok } from "node:assert/strict";
import { LlmClient } from "../src/llm/client.ts";
import { LlmIdeator, parseReply } from "../src/tree/ideate/llm_ideator.ts";
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
