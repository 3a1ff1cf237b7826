/**
 * `arrow resume <run>`: placeholder until crash-resume lands (issue 6).
 *
 * @module
 */
export const help = `Usage: arrow resume <run-dir>`;
export function main(_argv: string[]): Promise<number> {
  return Promise.resolve(2);
}
