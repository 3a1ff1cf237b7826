/**
 * The one seeded random source of the tabular toolkit: mulberry32 (Tommy Ettinger's 32-bit generator, a
 * Weyl sequence through an xorshift-multiply mixer), so splits, subsampling and inner folds replay exactly
 * from a seed on any machine. Never `Math.random()`: an outcome must follow from the seed alone.
 *
 * @module
 */

/** A function returning uniform floats in [0, 1), drawn from a 32-bit state. */
export type Rng = () => number;

/** A mulberry32 generator for `seed` (any integer; only its low 32 bits count). */
export function mulberry32(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Derives an independent seed for a named purpose, so two consumers of one seed never share a stream. */
export function subSeed(seed: number, purpose: string): number {
  let h = (seed ^ 0x811c9dc5) >>> 0;
  for (let i = 0; i < purpose.length; i++) h = Math.imul(h ^ purpose.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/** Shuffles `a` in place (Fisher–Yates, from the end) and returns it. */
export function shuffleInPlace<T extends { length: number; [i: number]: number }>(a: T, rng: Rng): T {
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    const t = a[i]!;
    a[i] = a[j]!;
    a[j] = t;
  }
  return a;
}
