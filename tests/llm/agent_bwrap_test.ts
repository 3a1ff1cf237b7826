/**
 * The agent's commands under bubblewrap, the sandbox prefix the engine gives live nodes: the scope is
 * writable, an input scope is read-only, and there is no network (not even the LLM server on 127.0.0.1).
 */
import { equal, match } from "node:assert/strict";
import { runAgent } from "../../src/llm/agent.ts";
import { fakeRun, jsonLines, testClient } from "./helpers.ts";
import { startScriptedServer } from "./scripted_server.ts";
import { needs, NO_BWRAP } from "../helpers/needs.ts";

const noBwrap = needs("agent_bwrap_test", "the bubblewrap case", NO_BWRAP);

Deno.test({
  name: "runAgent() under bubblewrap: writes land in the scope only, inputs stay read-only, no network",
  ignore: noBwrap,
  async fn() {
    await using run = await fakeRun();
    await using s = await startScriptedServer({ rules: [] });
    const script = [
      "echo hello > inside.txt",
      'echo tamper > "$(python3 -c \'import json,os;print(json.loads(os.environ["ARROW_INPUTS"])["N1"])\')/data.csv" ' +
      '|| echo "input: refused"',
      `python3 -c "import socket; socket.create_connection(('127.0.0.1', ${s.port}), timeout=2)" 2>/dev/null ` +
      '|| echo "network: refused"',
    ].join("\n");
    await using llm = await startScriptedServer({
      rules: [{ when: { turn: 0 }, reply: ["```bash", script, "```"] }, { reply: "DONE" }],
    });
    const sandbox = [
      "bwrap",
      ...["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--bind", run.scope, run.scope],
      ...["--unshare-all", "--die-with-parent", "--new-session", "--chdir", run.scope, "--"],
    ];
    const cfg = run.cfg({ sandbox });
    const out = await runAgent(cfg, { client: testClient(llm.url), model: "m" });
    equal(out.reason, "done");
    equal(Deno.readTextFileSync(`${run.scope}/inside.txt`), "hello\n");
    equal(Deno.readTextFileSync(`${run.input}/data.csv`), "x,y\n1,2\n2,4.1\n3,5.9\n");
    const cmd = jsonLines(cfg.transcript).find((r) => r.type === "command")!;
    match(String(cmd.stdout), /input: refused\nnetwork: refused/);
    equal(s.calls, 0);
    equal(cmd.argv && (cmd.argv as string[])[0], "bwrap");
  },
});
