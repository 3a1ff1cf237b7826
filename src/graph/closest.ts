/**
 * "Did you mean …?": the option closest to a misspelt word, by edit distance. Dependency-free, so the CLI
 * can suggest commands without loading the YAML parser.
 *
 * @module
 */

/** The allowed key closest to a misspelt one, when it is close enough to be a likely typo. */
export function closest(word: string, options: readonly string[]): string | undefined {
  const limit = Math.max(1, Math.floor(word.length / 3));
  const w = word.toLowerCase();
  let best: string | undefined;
  let bestD = Infinity;
  for (const o of options) {
    // The distance is at least the difference in length: skip hopeless options (and a megabyte-long typo).
    if (Math.abs(o.length - word.length) > limit) continue;
    const d = editDistance(w, o.toLowerCase());
    if (d < bestD) [best, bestD] = [o, d];
  }
  return bestD <= limit ? best : undefined;
}

/** Optimal string alignment distance: Levenshtein plus adjacent transpositions ("rnu" is one from "run"). */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from(
    { length: a.length + 1 },
    (_, i) => [i, ...Array<number>(b.length).fill(0)],
  );
  for (let j = 0; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        v = Math.min(v, d[i - 2]![j - 2]! + 1);
      }
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}
