import { resolveBuiltin } from "../../src/cli/catalog.ts";
import { prepare } from "../../src/engine/prepare.ts";
import { openSession } from "../../src/engine/run.ts";
import { step } from "../../src/engine/step.ts";
import { soonReady } from "../../src/engine/admit.ts";
const res = resolveBuiltin(Deno.args[0] ?? "green");
const dir = await Deno.makeTempDir();
let state = prepare(res.plan, res.faults, "x", "mock");
const { world, box } = openSession({ runDir: dir, tickMs: 0, maxTicks: 5000 });
box.begin(state); world.record(state); world.prewarm(state, (id) => soonReady(state, id));
const T: Record<string, number> = { sense: 0, step: 0, exec: 0, prewarm: 0, record: 0, append: 0 };
const t0 = performance.now();
while (state.verdict === null) {
  let t = performance.now();
  const obs = await world.sense(state, state.tick + 1); T.sense += performance.now() - t; t = performance.now();
  const r = step(state, obs); T.step += performance.now() - t; t = performance.now();
  await world.execute(r.state, r.actions); T.exec += performance.now() - t; t = performance.now();
  world.prewarm(r.state, (id) => soonReady(r.state, id)); T.prewarm += performance.now() - t; t = performance.now();
  world.record(r.state); T.record += performance.now() - t; t = performance.now();
  box.append({ tick: r.state.tick, events: r.events }, r.state); T.append += performance.now() - t;
  state = r.state;
}
await world.shutdown();
console.log(state.verdict, Math.round(performance.now() - t0), Object.entries(T).map(([k, v]) => `${k}=${v.toFixed(0)}`).join(" "));
