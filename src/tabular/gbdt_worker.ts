/**
 * The second thread of a parallel GBDT fit (gbdt_threads.ts): it adds the rows of a node into the histogram
 * slots of the features [from, p) while the fitting thread does [0, from). Each bin still sums its rows in
 * the node's row order, so the histogram is bit-identical to a one-thread fill. It talks through a shared
 * control array: ctl[0] the last job's number, ctl[1] the last job this thread finished, ctl[2] the job
 * (0 = release, 1 = fill), ctl[3] the gradient array, ctl[4..5] the row range, ctl[6] the first feature,
 * ctl[7] channels per slot (2 or 3), ctl[8] the last job claimed (by this thread or, when this one is late,
 * by the fitting thread, which then fills the rest itself), ctl[9] 1 once bound. No imports: one file.
 *
 * @module
 */
/// <reference lib="deno.worker" />

interface Bind {
  ctl: SharedArrayBuffer;
  slots: SharedArrayBuffer;
  wide: boolean;
  p: number;
  offset: Int32Array;
  gh: SharedArrayBuffer[];
  idx: SharedArrayBuffer;
  out: SharedArrayBuffer;
}

self.onmessage = (e: MessageEvent<Bind>) => {
  const d = e.data, p = d.p, offset = d.offset;
  const ctl = new Int32Array(d.ctl), idx = new Int32Array(d.idx), out = new Float64Array(d.out);
  const slots = d.wide ? new Int32Array(d.slots) : new Uint16Array(d.slots);
  const ghs = d.gh.map((b) => new Float64Array(b));
  const finish = (job: number) => {
    Atomics.store(ctl, 1, job);
    Atomics.notify(ctl, 1);
  };
  let seen = Atomics.load(ctl, 0);
  Atomics.store(ctl, 9, 1);
  Atomics.notify(ctl, 9);
  for (;;) {
    Atomics.wait(ctl, 0, seen);
    const job = seen = Atomics.load(ctl, 0);
    if (Atomics.compareExchange(ctl, 8, job - 1, job) !== job - 1) continue;
    if (ctl[2] === 0) return finish(job);
    const gh = ghs[ctl[3]!]!, start = ctl[4]!, end = ctl[5]!, from = ctl[6]!, c = ctl[7]!;
    out.fill(0, offset[from]! * c, offset[p]! * c);
    for (let t = start; t < end; t++) {
      const r = idx[t]!, g = gh[2 * r]!, h = gh[2 * r + 1]!, base = r * p;
      if (c === 3) {
        for (let f = from; f < p; f++) {
          const s = slots[base + f]! * 3;
          out[s]! += g;
          out[s + 1]! += h;
          out[s + 2]! += 1;
        }
      } else {
        for (let f = from; f < p; f++) {
          const s = slots[base + f]! << 1;
          out[s]! += g;
          out[s + 1]! += h;
        }
      }
    }
    finish(job);
  }
};
