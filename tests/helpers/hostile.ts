/**
 * Drives `arrow` as a black box against hostile workers: starts the CLI from source in its own process,
 * samples its peak resident memory (VmHWM in /proc/<pid>/status) while it runs, kills it when it hangs or
 * balloons (so a successful attack fails a test instead of the machine), and can kill -9 it mid-attack.
 * Also the two sandbox modes every attack runs in — bubblewrap, and `--unsandboxed` with bwrap hidden.
 *
 * @module
 */
import { commandLine } from "./procs.ts";

export const ROOT = new URL("../../", import.meta.url).pathname;
/** The ceiling on arrow's own resident memory. */
export const RSS_LIMIT_KB = 300 * 1024;
/** Past this the watchdog kills arrow at once: the attack has won and the machine must not pay for it. */
const RSS_KILL_KB = 1536 * 1024;
const TERM_GRACE_MS = 5000;
/** No tick for this long is a hang: a tick that starts twenty workers can take ten seconds on a loaded machine. */
export const STALL_MS = 60_000;

export interface Watched {
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  /** Highest VmHWM sampled (kB): the arrow process's peak resident set. */
  peakKb: number;
  wallMs: number;
  /** Killed by the watchdog: still running at the deadline (`hung`) or past RSS_KILL_KB (`ballooned`). */
  hung: boolean;
  ballooned: boolean;
  /** Killed by the caller's `poll` (kill -9 mid-attack). */
  killed: boolean;
  /** Process state letter seen at the deadline (T = stopped, S = sleeping …), for a hang's diagnosis. */
  lastState: string;
  /** A hung arrow was sent SIGTERM and was still alive TERM_GRACE_MS later. */
  termIgnored: boolean;
  /** Why it was called hung. */
  why: string;
}

export interface WatchOptions {
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  /** Called at every sample (every 20 ms); when it returns true arrow gets SIGKILL (kill -9 mid-attack). */
  poll?: () => boolean | void;
  /** The CLI entry point (a copy of the project tree runs its own). */
  main?: string;
  /**
   * A measure of the run's progress (the size of its replay.jsonl: one line a tick). When it stays the
   * same for STALL_MS, arrow is hung — its tick loop no longer turns — whatever the overall timeout.
   */
  progress?: () => number;
}

function status(pid: number): { hwm: number; rss: number; state: string } | null {
  try {
    const text = Deno.readTextFileSync(`/proc/${pid}/status`);
    const kb = (k: string) => Number(text.match(new RegExp(`^${k}:\\s+(\\d+) kB`, "m"))?.[1] ?? 0);
    return { hwm: kb("VmHWM"), rss: kb("VmRSS"), state: text.match(/^State:\s+(\S)/m)?.[1] ?? "?" };
  } catch {
    return null;
  }
}

/** Calls a poll; one that throws (a file read mid-write, say) counts as "not yet". */
function safePoll(poll: (() => boolean | void) | undefined): boolean {
  try {
    return poll?.() === true;
  } catch {
    return false;
  }
}

/** Runs `arrow <args>` under watch; never rejects for anything arrow does. */
export async function watchArrow(args: string[], o: WatchOptions): Promise<Watched> {
  const t0 = Date.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--no-prompt", o.main ?? `${ROOT}src/cli/main.ts`, ...args],
    cwd: o.cwd,
    env: o.env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const output = child.output();
  let done = false;
  void output.finally(() => (done = true)).catch(() => {});
  let peakKb = 0;
  let hung = false;
  let ballooned = false;
  let killed = false;
  let lastState = "";
  let termAt = 0;
  let why = "";
  let termIgnored = false;
  const kill = () => {
    try {
      child.kill("SIGKILL");
    } catch {
      // exited meanwhile
    }
  };
  let lastProgress = -1;
  let lastMoved = t0;
  while (!done) {
    const s = status(child.pid);
    const p = o.progress?.() ?? 0;
    if (p !== lastProgress) [lastProgress, lastMoved] = [p, Date.now()];
    const stalled = o.progress !== undefined && Date.now() - lastMoved > STALL_MS;
    if (s) {
      peakKb = Math.max(peakKb, s.hwm);
      if (s.rss > RSS_KILL_KB && !ballooned) [ballooned, lastState] = [true, s.state];
    }
    if (ballooned) kill();
    else if (!killed && safePoll(o.poll)) {
      killed = true;
      kill();
    } else if ((stalled || Date.now() - t0 > o.timeoutMs) && !hung) {
      // Past the deadline: ask politely first (a hang that also ignores SIGTERM is worse), then kill.
      hung = true;
      why = stalled ? `no tick for ${STALL_MS / 1000} s` : `still running after ${o.timeoutMs / 1000} s`;
      lastState = s?.state ?? "gone";
      termAt = Date.now();
      try {
        child.kill("SIGTERM");
      } catch {
        // exited meanwhile
      }
    } else if (termAt && Date.now() - termAt > TERM_GRACE_MS && !termIgnored) {
      termIgnored = true;
      kill();
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  const out = await output;
  const dec = new TextDecoder();
  return {
    code: out.signal ? null : out.code,
    signal: out.signal,
    stdout: dec.decode(out.stdout),
    stderr: dec.decode(out.stderr),
    peakKb,
    wallMs: Date.now() - t0,
    hung,
    ballooned,
    killed,
    lastState,
    termIgnored,
    why,
  };
}

/** One line saying how a watched arrow ended, for assertion messages. */
export function how(w: Watched): string {
  const end = w.hung
    ? `HUNG: ${w.why} (state ${w.lastState}${w.termIgnored ? ", SIGTERM ignored" : ", stopped by SIGTERM"})`
    : w.ballooned
    ? "BALLOONED past 1.5 GB"
    : w.killed
    ? "killed -9 by the test"
    : `exit ${w.code ?? w.signal}`;
  return `${end} after ${w.wallMs} ms, peak RSS ${Math.round(w.peakKb / 1024)} MB; stderr: ${
    w.stderr.slice(-1200)
  }`;
}

export interface Mode {
  name: "bwrap" | "unsandboxed";
  /** Flags `arrow run` needs in this mode. */
  flags: string[];
  /** PATH for arrow in this mode (bubblewrap hidden from it in the unsandboxed mode). */
  path: string;
}

export { BWRAP, NO_BWRAP } from "./needs.ts";

/**
 * A PATH directory with links to every program of the system directories except bwrap, so arrow cannot
 * find bubblewrap and command workers need --unsandboxed. Deno's own directory comes first.
 */
function pathWithoutBwrap(): string {
  const dir = Deno.makeTempDirSync({ prefix: "arrow-hostile-path-" });
  for (const d of ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"]) {
    let list: Deno.DirEntry[];
    try {
      list = [...Deno.readDirSync(d)];
    } catch {
      continue;
    }
    for (const e of list) {
      if (e.name === "bwrap") continue;
      try {
        Deno.symlinkSync(`${d}/${e.name}`, `${dir}/${e.name}`);
      } catch {
        // an earlier directory already has this name
      }
    }
  }
  globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));
  return dir;
}

const denoBin = Deno.execPath().slice(0, Deno.execPath().lastIndexOf("/"));
const SYSTEM_PATH = `${denoBin}:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin`;

export const MODES: Mode[] = [
  { name: "bwrap", flags: [], path: SYSTEM_PATH },
  { name: "unsandboxed", flags: ["--unsandboxed"], path: `${denoBin}:${pathWithoutBwrap()}` },
];

/** The Deno cache arrow and its Deno children use (named explicitly: the tests give arrow a fake HOME). */
export function denoDir(): string {
  const set = Deno.env.get("DENO_DIR");
  if (set) return set;
  const cache = Deno.env.get("XDG_CACHE_HOME") ?? `${Deno.env.get("HOME") ?? "/root"}/.cache`;
  return `${cache}/deno`;
}

/** The Python every attacker runs under: Debian's, which needs no HOME (a pyenv shim does). */
export const PYTHON = (() => {
  try {
    return Deno.statSync("/usr/bin/python3").isFile ? "/usr/bin/python3" : "python3";
  } catch {
    return "python3";
  }
})();

/** Peak RSS and wall time of every watched arrow, printed as they come (the report's figures). */
export const FIGURES: { label: string; peakMb: number; wallS: number; end: string }[] = [];

export function figure(label: string, w: Watched): void {
  const f = {
    label,
    peakMb: Math.round(w.peakKb / 1024),
    wallS: Math.round(w.wallMs / 100) / 10,
    end: w.hung ? "hung" : w.ballooned ? "ballooned" : w.killed ? "killed -9" : String(w.code ?? w.signal),
  };
  FIGURES.push(f);
  console.log(`hostile figure: ${label}: peak RSS ${f.peakMb} MB, ${f.wallS} s, ${f.end}`);
}

/** The first raw terminal control character in `text` (ESC, BEL, CSI, CR, bidi override), or null. */
export function rawControl(text: string): string | null {
  // deno-lint-ignore no-control-regex
  const m = text.match(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
  return m ? `U+${m[0].charCodeAt(0).toString(16).padStart(4, "0")} at ${m.index}` : null;
}

/**
 * Live (non-zombie) processes whose command line contains `needle`, this one excluded; a bubblewrap
 * process counts by what it runs, not by the mounts it lists (helpers/procs.ts `commandLine`).
 */
export function processesMatching(needle: string): number[] {
  const out: number[] = [];
  for (const d of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(d.name) || Number(d.name) === Deno.pid) continue;
    try {
      if (/\) Z /.test(Deno.readTextFileSync(`/proc/${d.name}/stat`))) continue;
      if (commandLine(Number(d.name)).includes(needle)) out.push(Number(d.name));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** Kills the given pids (processes an attack of this test left behind). */
export function reap(pids: number[]): void {
  for (const pid of pids) {
    try {
      Deno.kill(pid, "SIGKILL");
    } catch {
      // gone already
    }
  }
}

/** Size of a file, or 0 when it is missing. */
export function fileSize(path: string): number {
  try {
    return Deno.lstatSync(path).size;
  } catch {
    return 0;
  }
}

/** The last `bytes` bytes of a file as text, or "" when it is missing. */
export function tailOf(path: string, bytes: number): string {
  try {
    using f = Deno.openSync(path);
    const size = f.statSync().size;
    f.seekSync(Math.max(0, size - bytes), Deno.SeekMode.Start);
    const buf = new Uint8Array(Math.min(bytes, size));
    let got = 0;
    while (got < buf.length) {
      const n = f.readSync(buf.subarray(got));
      if (!n) break;
      got += n;
    }
    return new TextDecoder().decode(buf.subarray(0, got));
  } catch {
    return "";
  }
}

/** Text of a file, or "" when it is missing. */
export function text(path: string): string {
  try {
    return Deno.readTextFileSync(path);
  } catch {
    return "";
  }
}

/** Runs jobs at most `limit` at a time, in the order they were asked for. */
export class Pool {
  #running = 0;
  #waiting: (() => void)[] = [];

  constructor(readonly limit: number) {}

  async run<T>(job: () => Promise<T>): Promise<T> {
    if (this.#running >= this.limit) await new Promise<void>((r) => this.#waiting.push(r));
    this.#running++;
    try {
      return await job();
    } finally {
      this.#running--;
      this.#waiting.shift()?.();
    }
  }
}
