/**
 * File helpers for workers: a writer that can run dry (fast-forward after a crash writes nothing, because
 * the engine already restored the scope byte for byte), sha256 of files, and manifest reading.
 *
 * @module
 */
export class ScopeWriter {
  constructor(readonly dir: string, public dry = false) {}

  path(rel: string): string {
    return `${this.dir}/${rel}`;
  }

  write(rel: string, text: string): void {
    if (this.dry) return;
    const p = this.path(rel);
    const slash = p.lastIndexOf("/");
    Deno.mkdirSync(p.slice(0, slash), { recursive: true });
    Deno.writeTextFileSync(p, text);
  }

  append(rel: string, text: string): void {
    if (this.dry) return;
    Deno.writeTextFileSync(this.path(rel), text, { append: true, create: true });
  }

  json(rel: string, value: unknown): void {
    this.write(rel, JSON.stringify(value, null, 2) + "\n");
  }
}

/** sha256 hex digest via Web Crypto (node:crypto would add ~45 ms to every worker's start-up). */
export async function sha256(data: string | Uint8Array): Promise<string> {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  const d = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return [...new Uint8Array(d)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export function readJson<T>(path: string): T | undefined {
  try {
    return JSON.parse(Deno.readTextFileSync(path)) as T;
  } catch {
    return undefined;
  }
}
