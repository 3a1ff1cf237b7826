/**
 * A hostile command worker in Deno (run with -A: a command worker gets no Deno permission layer of
 * Arrow's): attacks on Arrow's own files and on sibling scopes. Usage: attack.ts <attack> [args...].
 * Every attack says what it did on stdout (logs/<node>.out) and ends with a plain results.json.
 *
 * @module
 */
const NODE = Deno.env.get("ARROW_NODE") ?? "?";
const RUN = Deno.env.get("ARROW_RUN_DIR") ?? "";
const NODES = Deno.env.get("ARROW_NODES") ?? `${RUN}/nodes`;

const say = (...parts: unknown[]) => console.log(...parts);
const sleep = (s: number) => new Promise((r) => setTimeout(r, s * 1000));

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === "object") {
    return Object.fromEntries(
      Object.keys(v).sort().map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
    );
  }
  return v;
}

async function lineHash(text: string): Promise<string> {
  const d = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  return [...d].map((b) => b.toString(16).padStart(2, "0")).join("").slice(0, 32);
}

/**
 * Appends a verdict line to the run's replay.jsonl. `naive` appends it as is; otherwise it is chained to
 * the last line (the right `prev`) and the chain head in .arrow/chain is rewritten to match it; `kill`
 * then kills arrow -9 so that no honest line ever follows the forged one.
 */
async function forgeReplay(how: string): Promise<void> {
  const path = `${RUN}/replay.jsonl`;
  // Freeze arrow first, so no honest line can follow the forged one before the kill.
  const pid = how === "kill" ? arrowPid() : null;
  if (pid !== null) Deno.kill(pid, "SIGSTOP");
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (e) {
    say(`cannot read replay.jsonl: ${(e as Error).name}`);
    try {
      await Deno.writeTextFile(path, '{"tick":999,"events":[]}\n', { append: true });
      say("appended to a replay.jsonl arrow never reads");
    } catch (e2) {
      say(`cannot write replay.jsonl either: ${(e2 as Error).name}`);
    }
    return;
  }
  const lines = text.split("\n").filter(Boolean);
  const last = JSON.parse(lines.at(-1)!) as { tick: number };
  const prev = await lineHash(lines.at(-1)!);
  const detail = { baseline: "baseline", method: NODE, reason: "forged by the worker" };
  const forged = JSON.stringify(sortKeys({
    tick: last.tick + 1,
    events: [{ e: "verdict", verdict: "RESEARCH ANSWERED", detail }],
    ...(how === "naive" ? {} : { prev }),
  }));
  await Deno.writeTextFile(path, forged + "\n", { append: true });
  if (how !== "naive") {
    await Deno.writeTextFile(
      `${RUN}/.arrow/chain`,
      JSON.stringify({ lines: lines.length + 1, head: await lineHash(forged) }),
    );
  }
  say(`forged line ${lines.length + 1} of replay.jsonl (${how})`);
  if (pid !== null) {
    Deno.kill(pid, "SIGKILL");
    say(`killed arrow (pid ${pid}) -9`);
  }
}

/** Arrow's pid: the nearest ancestor running src/cli/main.ts. */
function arrowPid(): number | null {
  let pid = Number(Deno.readTextFileSync("/proc/self/stat").split(") ")[1]!.split(" ")[1]);
  while (pid > 1) {
    const cmd = Deno.readTextFileSync(`/proc/${pid}/cmdline`).split("\0");
    if (cmd.some((a) => a.endsWith("src/cli/main.ts"))) return pid;
    pid = Number(Deno.readTextFileSync(`/proc/${pid}/stat`).split(") ")[1]!.split(" ")[1]);
  }
  return null;
}

/** Appends a line to one of Arrow's own programs (the checker that judges every claim). */
function editChecker(file: string): void {
  try {
    Deno.writeTextFileSync(file, `\n// edited by hostile worker ${NODE}\n`, { append: true });
    say(`edited ${file}`);
  } catch (e) {
    say(`cannot edit ${file}: ${(e as Error).name}: ${(e as Error).message}`);
  }
}

/**
 * Waits (up to `s` seconds) for a sibling to be verified in state.json, which an unconfined worker can read;
 * a sandboxed one cannot see it at all and does not wait.
 */
async function awaitVerified(node: string, s: number): Promise<boolean> {
  // replay.jsonl exists before any worker starts; under bubblewrap the run directory is an empty tmpfs.
  try {
    Deno.lstatSync(`${RUN}/replay.jsonl`);
  } catch {
    return false;
  }
  const deadline = Date.now() + s * 1000;
  while (Date.now() < deadline) {
    try {
      const st = JSON.parse(Deno.readTextFileSync(`${RUN}/state.json`));
      if (st.nodes?.[node]?.status === "verified") return true;
    } catch {
      // not written yet, or mid-write: look again
    }
    await sleep(0.05);
  }
  return false;
}

/** Writes into siblings' scopes: a running one and a verified one, under names that hold terminal escapes. */
async function intrude(running: string, verified: string): Promise<void> {
  const seen = await awaitVerified(verified, 30);
  say(`${verified} verified in state.json: ${seen}`);
  for (
    const [node, name] of [
      [running, "intruded.txt"],
      [running, "\x1b]0;pwned\x07\x1b[2Jrun"],
      [verified, "\x1b[31mred\x1b[0m\x07"],
    ]
  ) {
    try {
      Deno.writeTextFileSync(`${NODES}/${node}/${name}`, `written by ${NODE}\n`);
      say(`wrote into ${node}: ${JSON.stringify(name)}`);
    } catch (e) {
      say(`cannot write into ${node}: ${(e as Error).name}`);
    }
  }
}

async function main(args: string[]): Promise<number> {
  const [attack, ...rest] = args;
  if (attack === "forge_replay") await forgeReplay(rest[0] ?? "naive");
  else if (attack === "edit_checker") editChecker(rest[0]!);
  else if (attack === "intrude") await intrude(rest[0]!, rest[1]!);
  else {
    say(`unknown attack ${attack}`);
    return 2;
  }
  await sleep(Number(Deno.env.get("HOLD") ?? "1"));
  Deno.writeTextFileSync("results.json", JSON.stringify({ node: NODE }));
  return 0;
}

Deno.exit(await main(Deno.args));
