/** Unit tests of the Deno SDK's path and number helpers. */
import { equal, throws } from "node:assert/strict";
import { basename, finite, normalize, resolveInside } from "./paths.ts";

Deno.test("normalize() collapses dots and slashes of an absolute path", () => {
  equal(normalize("/a//b/./c/../d/"), "/a/b/d");
  equal(normalize("/.."), "/");
});

Deno.test("resolveInside() accepts only paths that stay inside the base", () => {
  equal(resolveInside("/run/nodes/a", "model.json"), "/run/nodes/a/model.json");
  equal(resolveInside("/run/nodes/a", "sub/../model.json"), "/run/nodes/a/model.json");
  equal(resolveInside("/run/nodes/a", "../b/x"), null);
  equal(resolveInside("/run/nodes/a", "../ab/x"), null);
  equal(resolveInside("/run/nodes/a", "."), null);
  equal(resolveInside("/run/nodes/a", ""), null);
  equal(resolveInside("/run/nodes/a", 3), null);
  equal(resolveInside("/run/nodes/a", "/run/nodes/a/m.json"), null);
  equal(resolveInside("/run/nodes/a", "/run/nodes/a/m.json", true), "/run/nodes/a/m.json");
  equal(resolveInside("/run/nodes/a", "/run/nodes/ab/m.json", true), null);
});

Deno.test("basename() is the last path segment", () => {
  equal(basename("/a/b/step_000012.json"), "step_000012.json");
  equal(basename("/a/b/"), "b");
});

Deno.test("finite() says what could not be done with a non-finite number", () => {
  equal(finite(0.5, "x"), 0.5);
  throws(() => finite(NaN, "claim a score"), /Cannot claim a score: .* is not a finite number/);
  throws(() => finite("1", "claim a score"), /Cannot claim a score: "1" is not a finite number/);
});
