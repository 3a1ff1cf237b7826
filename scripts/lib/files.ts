/**
 * File helpers for workers: a writer that can run dry (fast-forward after a crash writes nothing, because
 * the engine already restored the scope byte for byte), sha256 of files, and manifest reading.
 *
 * @module
 */
import { createHash } from "node:crypto";

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

export function sha256(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

export function readJson<T>(path: string): T | undefined {
  try {
    return JSON.parse(Deno.readTextFileSync(path)) as T;
  } catch {
    return undefined;
  }
}
