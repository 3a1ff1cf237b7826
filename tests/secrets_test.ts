/**
 * A key-like string planted where a user's run really meets one (issue 24): a value in the user's CSV that
 * reaches the tree LLM ideator's prompt (a class label) and comes back in its reply, and an agent's reply and
 * command output on the live path. Every log, transcript, black box and report the run writes has it
 * redacted; only the files that hold the user's own data or the run's state carry it (listed, so a new
 * file that leaks it fails here).
 *
 * @module
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { arrow } from "./helpers/cli.ts";
import { BWRAP } from "./helpers/needs.ts";
import { type Script, startScriptedServer } from "./llm/scripted_server.ts";

const KEY = "sk-arrow-test-key-0123456789abcdefgh";

/** Paths under `root` (relative) of the files whose bytes contain `secret`. */
function holding(root: string, secret: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of Deno.readDirSync(dir)) {
      const p = `${dir}/${e.name}`;
      if (e.isDirectory) walk(p);
      else if (e.isFile && new TextDecoder().decode(Deno.readFileSync(p)).includes(secret)) {
        out.push(p.slice(root.length + 1));
      }
    }
  };
  walk(root);
  return out.sort();
}

Deno.test("a key-like value in the CSV reaches the ideator's prompt and reply: redacted in the LLM log and the report", async () => {
  const secret = "sk-row-PLANTED-abcdefghij0123456789";
  const module = [
    'import type { FeatureTransform } from "tabular";',
    "const step: FeatureTransform<null> = { fit: () => null, transform: (_s, rows) => rows };",
    "export default step;",
  ].join("\n");
  const reply = JSON.stringify({
    hypothesis: `Treat the class ${secret} apart from the others.`,
    family: "llm",
    columns: ["x1"],
    module,
  });
  await using server = await startScriptedServer({
    rules: [{
      when: { system: "ideator of Arrow's tree mode" },
      reply: `Here it is (${secret}).\n${reply}`,
      usage: { prompt_tokens: 300, completion_tokens: 100, cost: 0.004 },
    }],
  });
  const dir = Deno.makeTempDirSync({ prefix: "arrow-secrets-tree-" });
  try {
    const rows = Array.from({ length: 120 }, (_, i) => {
      const x1 = (i * 7) % 19, x2 = (i * 11) % 13;
      return `${x1},${x2},${["low", "mid", secret][(x1 + (i % 4 === 0 ? 1 : 0)) % 3]}`;
    });
    Deno.writeTextFileSync(`${dir}/d.csv`, ["x1,x2,level", ...rows].join("\n") + "\n");
    const r = await arrow([
      ...["tree", "--data", `${dir}/d.csv`, "--target", "level", "--cycles", "1", "--executors", "1"],
      ...["--ideator", "llm", "--runs-dir", `${dir}/runs`, ...(BWRAP ? [] : ["--unsandboxed"])],
    ], {
      env: {
        ARROW_LLM_BASE_URL: server.url,
        ARROW_LLM_API_KEY: KEY,
        ARROW_LLM_MODEL: "scripted",
        ARROW_LLM_MAX_RETRIES: "0",
      },
    });
    equal(r.code, 0, r.stderr);
    ok(server.calls >= 1);
    ok(JSON.stringify(server.requests[0]!.body).includes(secret), "the value is in the prompt sent");
    // What arrow tree printed (the hypotheses, notes and summary) is redacted like the files.
    ok(r.stdout.includes("[REDACTED]"), r.stdout);
    equal(r.stdout.includes(secret) || r.stderr.includes(secret), false, "the console never shows it");
    const run = `${dir}/runs/${[...Deno.readDirSync(`${dir}/runs`)][0]!.name}`;
    const log = Deno.readTextFileSync(`${run}/logs/llm.jsonl`);
    ok(log.includes("Treat the class [REDACTED] apart"), log.slice(0, 600));
    const md = Deno.readTextFileSync(`${run}/report/report.md`);
    ok(md.includes("Treat the class [REDACTED] apart"), md);
    // The ideator's use, from its log: one call per hypothesis asked for, its tokens and reported cost.
    match(md, new RegExp(`^\\| ${server.calls} \\| ${400 * server.calls} \\| \\$[\\d.]+ \\|$`, "m"));
    equal(holding(run, KEY).join(), "", "the API key is in no file");
    // What holds it is the user's data and what is made of it: the dev rows and task executors read, the
    // splits, the saved model (its class labels), the state and store that describe the data, the steps'
    // scopes, and the children's stdout (the refit's is the model it hands back, read by Arrow byte for
    // byte), kept in .arrow/out/, out of logs/. No log for people, transcript, incident or report is here.
    const held = holding(run, secret).filter((p) => !/^nodes\/n\d+\/|^\.arrow\/out\//.test(p));
    deepEqual(held, [
      "data/dev.csv",
      "data/task.json",
      "model/gbdt.json",
      "model/model.json",
      "splits.json",
      "state.json",
      "tree.db",
      "tree/replay.jsonl",
    ]);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("a key-like string in an agent's reply and command output: redacted in its transcript, the logs and the report", async () => {
  const secret = "sk-agent-PLANTED-abcdefghij0123456789";
  const script = JSON.parse(
    Deno.readTextFileSync(new URL("./fixtures/live/research.json", import.meta.url)),
  ) as Script;
  // N3's honest first turn also says the key aloud and prints it from a command.
  const n3 = script.rules.find((x) =>
    x.when?.system === "node N3" && x.when?.turn === 0 && x.reply !== undefined
  )!;
  const lines = n3.reply as string[];
  n3.reply = [
    `Using api_key=${secret} as told.`,
    ...lines.slice(1, 3),
    `print("token", "${secret}")`,
    ...lines.slice(3),
  ];
  await using server = await startScriptedServer(script);
  const runsDir = Deno.makeTempDirSync({ prefix: "arrow-secrets-live-" });
  try {
    const q = "Does a small trained model beat a simple baseline on the seeded regression data?";
    const r = await arrow([
      "research",
      q,
      "--json",
      "--runs-dir",
      runsDir,
      ...(BWRAP ? [] : ["--unsandboxed"]),
    ], {
      env: { ARROW_LLM_BASE_URL: server.url, ARROW_LLM_API_KEY: KEY, ARROW_LLM_MODEL: "scripted" },
    });
    equal(r.code, 0, r.stderr);
    const runDir = JSON.parse(r.stdout).run_dir as string;
    ok(JSON.stringify(server.requests).includes("token"), "the command ran and its output went back");
    equal(holding(runDir, KEY).join(), "", "the API key is in no file");
    // The agent's own scope may hold what its commands wrote there; nothing Arrow writes holds the key.
    deepEqual(holding(runDir, secret).filter((p) => !/^nodes\/N\d+\/(?!\.arrow)/.test(p)), []);
    const transcripts = holding(runDir, "[REDACTED]");
    ok(
      transcripts.some((p) => /N3/.test(p)),
      `N3's transcript shows the redaction: ${transcripts.join(", ")}`,
    );
  } finally {
    Deno.removeSync(runsDir, { recursive: true });
  }
});
