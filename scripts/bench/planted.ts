/**
 * bench:tree's planted dataset (scripts/bench_tree.ts `--datasets planted`).
 *
 * @module
 */
import { mulberry32 } from "../../src/tabular/mod.ts";

/**
 * A positive control, not a public dataset: 600 rows generated here (seeded) where the target is mostly a
 * ratio of two numeric columns (y = 5·x4/x2 + 0.5·[g = "c"] + N(0, 0.5²)) — a gain a feature step can find
 * and a fixed GBDT on 360 rows only approximates. It answers whether a zero gain on the public sets means
 * "nothing to find" or "the search cannot find it". Run it with `--datasets planted`.
 */
export const PLANTED = "planted";

export function writePlanted(path: string): void {
  const rng = mulberry32(20261130);
  const normal = () => Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng());
  const lines = ["x1,x2,x3,x4,x5,g,y"];
  for (let i = 0; i < 600; i++) {
    const x = Array.from({ length: 5 }, () => 1 + 9 * rng());
    const g = "abcd"[Math.floor(rng() * 4)]!;
    const y = (5 * x[3]!) / x[1]! + (g === "c" ? 0.5 : 0) + 0.5 * normal();
    lines.push([...x.map((v) => v.toFixed(3)), g, y.toFixed(4)].join(","));
  }
  Deno.writeTextFileSync(path, lines.join("\n") + "\n");
}
