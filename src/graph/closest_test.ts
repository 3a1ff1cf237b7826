import { equal } from "node:assert/strict";
import { closest } from "./closest.ts";

const KEYS = ["acceptance", "budget", "can_spawn", "kind", "role", "scope", "spawn_only"];

Deno.test("closest() suggests the option a typo most likely meant", () => {
  equal(closest("scpoe", KEYS), "scope");
  equal(closest("Kind", KEYS), "kind");
  equal(closest("acceptnce", KEYS), "acceptance");
  equal(closest("colour", KEYS), undefined);
});

Deno.test("closest() answers at once for a word of a million characters", () => {
  equal(closest("s".repeat(1_000_000), KEYS), undefined);
  equal(closest("x", []), undefined);
});
