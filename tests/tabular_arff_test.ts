/** The ARFF reader that turns Debian's weka example files into the benchmark's CSVs. */
import { deepEqual, throws } from "node:assert/strict";
import { parseArff } from "../scripts/datasets/arff.ts";
import { ROOT } from "./helpers/cli.ts";

Deno.test("parseArff() reads quoted names and values, with ? as missing", () => {
  const a = parseArff(Deno.readTextFileSync(`${ROOT}tests/fixtures/tabular/mini.arff`), "mini.arff");
  deepEqual(a.names, ["handicapped-infants", "age", "class name"]);
  deepEqual(a.rows, [["n", "34", "good"], [null, null, "very bad"], ["y", "1.5", "it's bad"]]);
});

Deno.test("parseArff() names the line of a malformed row and refuses sparse data", () => {
  throws(
    () => parseArff("@attribute a numeric\n@data\n1,2\n", "x.arff"),
    /x\.arff:3: 2 values for 1 attributes/,
  );
  throws(
    () => parseArff("@attribute a numeric\n@data\n'1\n", "x.arff"),
    /x\.arff:3: a quoted value never closes/,
  );
  throws(() => parseArff("@attribute a numeric\n@data\n{0 1}\n", "x.arff"), /sparse/);
  throws(() => parseArff("@attribute a numeric\n", "x.arff"), /no @data/);
});
