/**
 * An artifact's step modules as self-contained `data:` URLs, so a worker that can read nothing of any scope
 * can load them: the harness (which may read the node's scope) reads each module and rewrites its static
 * import specifiers — a file in the scope becomes a `data:` URL of its own (recursively), anything else an
 * absolute `file:` URL. That is what lets a slot start the artifact's workers before it knows which node
 * they will serve: their lane (the toolkit and this directory, nothing else) is the same for every job.
 *
 * The rewriting is textual and errs only towards failing: a specifier it misses or cannot resolve is still
 * loaded by the worker under its own permissions, which refuse anything outside its lane (the attempt shows
 * in the permission audit like any other). Computed specifiers (`import(x)`) are left alone for the same
 * reason. Circular imports between the scope's modules cannot be expressed as `data:` URLs and are refused.
 *
 * @module
 */
import { createHash } from "node:crypto";

/** A step module that cannot be bundled: its lesson. */
export class BundleError extends Error {
  constructor(readonly path: string, reason: string) {
    super(`${path} cannot be loaded: ${reason}`);
    this.name = "BundleError";
  }
}

const MAX_MODULES = 64;
const MAX_BYTES = 4 * 1024 * 1024;
/** `from "x"`, `import "x"`, `import("x")` (and `export … from "x"`) with a literal path-like specifier. */
const SPECIFIER = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(["'])((?:\.{1,2}\/|\/|file:)[^"'\r\n]*)\2/g;
const CODE = /\.(?:[cm]?[jt]sx?)$/;

function mediaType(path: string): string {
  if (/\.(?:[cm]?tsx?)$/.test(path)) return path.endsWith("x") ? "text/tsx" : "application/typescript";
  if (CODE.test(path)) return path.endsWith("x") ? "text/jsx" : "application/javascript";
  if (path.endsWith(".json")) return "application/json";
  return "text/plain";
}

function dataUrl(path: string, text: string): string {
  const bytes = new TextEncoder().encode(text);
  let bin = "";
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return `data:${mediaType(path)};base64,${btoa(bin)}`;
}

/** A step module bundled: its path in the artifact, its `data:` URL, and the SHA-256 of its file as read. */
export interface BundledStep {
  path: string;
  url: string;
  sha256: string;
}

/**
 * The modules at `paths` (relative to `scope`) as `data:` URLs, in the same order. Throws BundleError for a
 * module that cannot be read, imports in a circle, or makes the artifact too large.
 */
export function bundleSteps(scope: string, paths: readonly string[]): string[] {
  return bundleArtifact(scope, paths).map((s) => s.url);
}

/** As bundleSteps, with each step's path and the content hash of its file (read once, for both). */
export function bundleArtifact(scope: string, paths: readonly string[]): BundledStep[] {
  const root = new URL(`file://${scope.endsWith("/") ? scope : `${scope}/`}`);
  const done = new Map<string, string>();
  const hashes = new Map<string, string>();
  let bytes = 0;
  const bundle = (url: URL, top: string, chain: string[]): string => {
    const key = url.href;
    const ready = done.get(key);
    if (ready) return ready;
    const rel = decodeURIComponent(url.pathname.slice(root.pathname.length));
    if (chain.includes(key)) throw new BundleError(top, `its modules import each other in a circle (${rel})`);
    if (done.size >= MAX_MODULES) throw new BundleError(top, `it imports more than ${MAX_MODULES} modules`);
    let text: string;
    try {
      text = Deno.readTextFileSync(url);
    } catch (e) {
      throw new BundleError(top, `${rel} cannot be read (${e instanceof Error ? e.message : String(e)})`);
    }
    hashes.set(key, createHash("sha256").update(text).digest("hex"));
    bytes += text.length;
    if (bytes > MAX_BYTES) throw new BundleError(top, `its modules are larger than ${MAX_BYTES} bytes`);
    if (CODE.test(url.pathname)) {
      text = text.replace(SPECIFIER, (whole, head: string, quote: string, spec: string) => {
        let to: URL;
        try {
          to = new URL(spec, url);
        } catch {
          return whole;
        }
        const inScope = to.protocol === "file:" && to.pathname.startsWith(root.pathname);
        const target = inScope ? bundle(to, top, [...chain, key]) : to.href;
        return `${head}${quote}${target}${quote}`;
      });
    }
    const out = dataUrl(url.pathname, text);
    done.set(key, out);
    return out;
  };
  return paths.map((p) => {
    const url = new URL(p, root);
    if (!url.pathname.startsWith(root.pathname)) throw new BundleError(p, "it is not in the node's scope");
    const out = bundle(url, p, []);
    return { path: p, url: out, sha256: hashes.get(url.href)! };
  });
}
