import { deepEqual, equal } from "node:assert/strict";
import type { Manifest, Tuple } from "../model/state.ts";
import { checkComparability, TUPLE_FIELDS, tupleOf } from "./comparability.ts";

const frozen: Tuple = { data_hash: "d1", split_hash: "s1", protocol_version: "p1", seed: 7 };
const m = (node: string, over: Partial<Manifest> = {}): Manifest => ({ node, ...frozen, ...over });
const all = (x: Manifest) => ({ manifest: x, fields: TUPLE_FIELDS });

Deno.test("checkComparability() passes identical tuples", () => {
  equal(checkComparability(frozen, [all(m("N3")), all(m("N4"))]), null);
});

Deno.test("checkComparability() blames the first deviator in sorted node order", () => {
  const dev = checkComparability(frozen, [all(m("N5", { seed: 8 })), all(m("N4", { data_hash: "d2" }))]);
  deepEqual(dev, { node: "N4", field: "data_hash", expected: "d1", got: "d2" });
});

Deno.test("checkComparability() treats a missing field as a deviation", () => {
  const { split_hash: _, ...rest } = m("N4");
  deepEqual(checkComparability(frozen, [all(rest as Manifest)]), {
    node: "N4",
    field: "split_hash",
    expected: "s1",
    got: null,
  });
});

Deno.test("checkComparability() compares seeds as integers and never as floats", () => {
  equal(checkComparability(frozen, [all(m("N4", { seed: 7.0 }))]), null);
  equal(checkComparability(frozen, [all(m("N4", { seed: 7.0000001 }))])?.field, "seed");
  equal(checkComparability(frozen, [all(m("N4", { seed: "7" as unknown as number }))])?.field, "seed");
});

Deno.test("checkComparability() holds a manifest only to the fields it is gated on", () => {
  const partial = { node: "N0", protocol_version: "p1", seed: 7 } as Manifest;
  equal(checkComparability(frozen, [{ manifest: partial, fields: ["protocol_version", "seed"] }]), null);
  equal(checkComparability(frozen, [{ manifest: partial, fields: TUPLE_FIELDS }])?.field, "data_hash");
});

Deno.test("tupleOf() requires all four fields with the right types", () => {
  deepEqual(tupleOf(m("N2")), frozen);
  equal(tupleOf({ node: "N2", data_hash: "d", split_hash: "s", protocol_version: "p" }), undefined);
});
