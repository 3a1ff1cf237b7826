/**
 * Errors the CLI turns into exit codes: bad usage and bad input exit 1 with a clear message; anything else
 * is an internal failure (exit 2).
 *
 * @module
 */

/** Wrong flags or arguments. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** Input that cannot be used (a broken plan, a missing run directory); `lines` are printed one per line. */
export class InputError extends Error {
  override name = "InputError";
  constructor(message: string, readonly lines: string[] = []) {
    super(message);
  }
}

/** Reads a file the user named, turning a failure into an InputError that says which file and why. */
export function readInput(path: string, what: string): string {
  try {
    return Deno.readTextFileSync(path);
  } catch (e) {
    const why = e instanceof Deno.errors.NotFound
      ? "no such file"
      : e instanceof Deno.errors.IsADirectory
      ? "is a directory"
      : (e as Error).message;
    throw new InputError(`arrow run: cannot read ${what} ${path}: ${why}`);
  }
}
