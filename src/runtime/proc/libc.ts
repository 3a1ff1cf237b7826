/**
 * The three libc calls Deno has no API for — prctl(PR_SET_CHILD_SUBREAPER), prctl(PR_GET_CHILD_SUBREAPER)
 * and waitpid(pid, WNOHANG) — through Deno FFI, or the reason they cannot be had (not Linux, no FFI
 * permission, no glibc).
 *
 * @module
 */

const PR_SET_CHILD_SUBREAPER = 36;
const PR_GET_CHILD_SUBREAPER = 37;
const WNOHANG = 1;

const SYMBOLS = {
  prctl: { parameters: ["i32", "u64", "u64", "u64", "u64"], result: "i32" },
  prctl_get: { name: "prctl", parameters: ["i32", "buffer", "u64", "u64", "u64"], result: "i32" },
  waitpid: { parameters: ["i32", "buffer", "i32"], result: "i32" },
} as const;

export interface Libc {
  /** Marks this process as the child subreaper of its descendants (or stops being one); false on failure. */
  setSubreaper(on: boolean): boolean;
  /** Whether this process is a child subreaper now. */
  isSubreaper(): boolean;
  /**
   * Collects the exit of a child of this process without blocking: "reaped" when it had ended, "running"
   * when it has not, "none" when the pid is no child of ours (or already collected).
   */
  reap(pid: number): "reaped" | "running" | "none";
}

let opened: Libc | string | null = null;

/** The process's libc (opened once), or why it cannot be. */
export function libc(): Libc | string {
  opened ??= open();
  return opened;
}

function open(): Libc | string {
  if (Deno.build.os !== "linux") return `not Linux (${Deno.build.os})`;
  let lib: Deno.DynamicLibrary<typeof SYMBOLS>;
  try {
    lib = Deno.dlopen("libc.so.6", SYMBOLS);
  } catch (e) {
    return `cannot call libc through FFI: ${(e as Error).message.split("\n")[0]}`;
  }
  const status = new Uint8Array(4);
  return {
    setSubreaper: (on) => lib.symbols.prctl(PR_SET_CHILD_SUBREAPER, on ? 1n : 0n, 0n, 0n, 0n) === 0,
    isSubreaper: () => {
      const flag = new Int32Array(1);
      return lib.symbols.prctl_get(PR_GET_CHILD_SUBREAPER, flag, 0n, 0n, 0n) === 0 && flag[0] !== 0;
    },
    reap: (pid) => {
      if (!Number.isSafeInteger(pid) || pid <= 0) return "none";
      const r = lib.symbols.waitpid(pid, status, WNOHANG);
      return r === pid ? "reaped" : r === 0 ? "running" : "none";
    },
  };
}
