/**
 * What a test needs from the machine beyond what the README installs (Deno alone): bubblewrap, a mount
 * namespace (util-linux unshare, and the right to use it), chromium, Python packages. Each probe finds out without throwing — a missing program is an answer, never an
 * uncaught error at module level — and a test that cannot run is ignored with the reason printed once per
 * file (`needs(…)`), never returned early as passed. The Slurm cluster has its own helper
 * (`tests/slurm_helper.ts`), which follows the same rule.
 *
 * @module
 */
import { findBwrap } from "../../src/runtime/sandbox/bwrap.ts";
import { findUnshare, type Unshare } from "../../src/runtime/sandbox/namespace.ts";

/** How to install each thing, as printed beside the reason a test is ignored. */
export const INSTALL = {
  bwrap: "apt-get install -y bubblewrap",
  chromium: "apt-get install -y chromium",
  sklearn: "apt-get install -y python3-sklearn",
  xgboost: "apt-get install -y python3-xgboost",
} as const;

/** Path of a working bubblewrap (it can make namespaces here), or null. */
export const BWRAP: string | null = await findBwrap();
export const NO_BWRAP = BWRAP
  ? null
  : `bubblewrap is not installed or cannot create namespaces here (${INSTALL.bwrap})`;

const unshare = await findUnshare();
/** How to make a watch-only mount namespace here (util-linux unshare), or null. */
export const UNSHARE: Unshare | null = "why" in unshare ? null : unshare;
export const NO_UNSHARE = "why" in unshare ? unshare.why : null;

/** Path of an installed chromium, or null. */
export const CHROMIUM: string | null =
  ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((p) => isFile(p)) ?? null;
export const NO_CHROMIUM = CHROMIUM ? null : `chromium is not installed (${INSTALL.chromium})`;

/** Absolute path of `name` on PATH, or null. */
export function onPath(name: string, path = Deno.env.get("PATH") ?? ""): string | null {
  for (const dir of path.split(":")) {
    if (dir && isFile(`${dir}/${name}`)) return `${dir}/${name}`;
  }
  return null;
}

/** Null when `python3` imports every module, else why not (with the install command). */
export function pythonLacks(...modules: (keyof typeof INSTALL)[]): string | null {
  const py = isFile("/usr/bin/python3") ? "/usr/bin/python3" : onPath("python3");
  if (!py) return "python3 is not installed";
  const missing = modules.filter((m) => {
    try {
      return !new Deno.Command(py, { args: ["-c", `import ${m}`], stdout: "null", stderr: "null" })
        .outputSync().success;
    } catch {
      return true;
    }
  });
  return missing.length === 0
    ? null
    : `python3 lacks ${missing.join(", ")} (${missing.map((m) => INSTALL[m]).join("; ")})`;
}

const told = new Set<string>();

/**
 * True when the test must be ignored; prints `file: what is ignored — reason` once per (file, what).
 * Use as `ignore: needs("browser_test", "the browser cases", NO_CHROMIUM)`.
 */
export function needs(file: string, what: string, reason: string | null): boolean {
  if (reason === null) return false;
  const line = `${file}: ${what} ignored — ${reason}`;
  if (!told.has(line)) {
    told.add(line);
    console.log(line);
  }
  return true;
}

function isFile(p: string): boolean {
  try {
    return Deno.statSync(p).isFile;
  } catch {
    return false;
  }
}
