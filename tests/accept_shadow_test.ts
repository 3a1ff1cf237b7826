/**
 * An acceptance command runs read-only under bubblewrap; a write it attempts outside (here /tmp, beside
 * the run) lands in a shadow of its own instead of being refused in silence, and is a SCOPE_VIOLATION on
 * the node it judged, naming the path, the operation and what stopped it. The host is untouched.
 */
import { deepEqual, equal } from "node:assert/strict";
import { loadPlan } from "../src/graph/load.ts";
import { BWRAP, needs, NO_BWRAP } from "./helpers/needs.ts";
import { runReal } from "./helpers/real.ts";

Deno.test({
  name: "an acceptance command's write outside its lane is seen and blamed on the node it judged",
  ignore: needs("accept_shadow_test", "the bubblewrap case", NO_BWRAP),
  fn: async () => {
    const evil = `/tmp/arrow-accept-evil-${crypto.randomUUID().slice(0, 8)}.txt`;
    const r0 = loadPlan(
      JSON.stringify({
        question: "Is a check's stray write seen?",
        protocol: { version: "p1", metric: "dev_r2", direction: "maximize" },
        nodes: [{
          id: "A",
          kind: "fast",
          role: "other",
          worker: { type: "command", argv: ["sh", "-c", `printf '{"node":"A"}' > results.json`] },
          acceptance: ["sh", "-c", `echo x > ${evil} && echo written`],
        }],
        edges: [],
      }),
      "accept.yaml",
    );
    if (!r0.plan) throw new Error(JSON.stringify(r0.errors));
    const r = await runReal("accept_shadow", r0.plan, [], { bwrap: BWRAP });
    try {
      deepEqual(r.triples, [["SCOPE_VIOLATION", "A", "blame_routing"]]);
      deepEqual((r.incidents[0]!.evidence as { attempts: unknown[] }).attempts, [
        { path: evil, op: "write", stopped_by: "bwrap-shadow", reverted: false },
      ]);
      equal(r.state.nodes.A!.status, "blocked");
      let there = true;
      try {
        Deno.statSync(evil);
      } catch {
        there = false;
      }
      equal(there, false, "the host's /tmp is untouched");
    } finally {
      await Deno.remove(r.dir, { recursive: true });
    }
  },
});
