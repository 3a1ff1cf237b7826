/**
 * Temporary directories a test file makes, removed together after each test (a leak fills /tmp run by run).
 *
 * @module
 */

/** A maker of temporary directories under `prefix`, and the clean-up that removes every one it made. */
export function tempDirs(prefix: string): { tempDir: () => string; cleanUp: () => void } {
  const made: string[] = [];
  return {
    tempDir: () => {
      const d = Deno.makeTempDirSync({ prefix });
      made.push(d);
      return d;
    },
    cleanUp: () => {
      for (const d of made.splice(0)) Deno.removeSync(d, { recursive: true });
    },
  };
}
