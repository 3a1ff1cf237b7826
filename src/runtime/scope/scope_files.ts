/**
 * File moves inside a run directory: setting a scope's old contents aside before a fresh attempt (kept as
 * evidence, never deleted), dropping checkpoints a resumed attempt will write again, and listing a tree.
 *
 * @module
 */

/** Moves a scope's contents to `dest`; the directory itself stays, so a worker's cwd and permissions hold. */
export function moveContentsAside(scope: string, dest: string): void {
  let names: string[];
  try {
    names = [...Deno.readDirSync(scope)].map((d) => d.name);
  } catch {
    return;
  }
  if (!names.length) return;
  try {
    Deno.removeSync(dest, { recursive: true });
  } catch {
    // nothing there yet
  }
  Deno.mkdirSync(dest, { recursive: true });
  for (const name of names) Deno.renameSync(`${scope}/${name}`, `${dest}/${name}`);
}

/** Moves checkpoint files whose step (the digits in the name) is beyond `keepStep` to `dest`. */
export function moveLaterCkpts(scope: string, keepStep: number, dest: string): void {
  let names: string[] = [];
  try {
    names = [...Deno.readDirSync(`${scope}/ckpt`)].map((d) => d.name);
  } catch {
    return;
  }
  for (const name of names) {
    const m = name.match(/(\d+)/);
    if (!m || Number(m[1]) <= keepStep) continue;
    Deno.mkdirSync(dest, { recursive: true });
    Deno.renameSync(`${scope}/ckpt/${name}`, `${dest}/${name}`);
  }
}

/** Every file under `dir`, as sorted relative paths (a missing directory is empty). */
export function listFiles(dir: string, rel = ""): string[] {
  const out: string[] = [];
  try {
    for (const d of Deno.readDirSync(rel ? `${dir}/${rel}` : dir)) {
      const r = rel ? `${rel}/${d.name}` : d.name;
      if (d.isDirectory) out.push(...listFiles(dir, r));
      else out.push(r);
    }
  } catch {
    // not created yet
  }
  return out.sort();
}
