/**
 * The helper thread of a two-thread GBDT fit (gbdt_threads.ts): bound to a fit's shared arrays by one
 * message, it waits for jobs on the shared control array (gbdt_handoff.ts) and does the second half of each
 * with the same code as the fitting thread — binning the second half of the columns, writing the slots of the
 * second half of the rows, a histogram fill's second half of the features (into its own histogram, copied
 * back by the fitting thread), a partition's, the gradients' or the score update's second half of the rows —
 * until the fit releases it.
 *
 * @module
 */
/// <reference lib="deno.worker" />
import { binColumn, writeSlots } from "./gbdt_bins.ts";
import { CellScratch } from "./gbdt_cells.ts";
import { type Bind, CTL, JOB, signal, TASKS, waitFor } from "./gbdt_handoff.ts";
import { addLeaves, fill2, fill3, fillSome, partitionRows } from "./gbdt_kernels.ts";
import { gradients } from "./gbdt_loss.ts";

self.onmessage = (e: MessageEvent<Bind>) => {
  const d = e.data, { n, p, K, maxBins } = d, task = TASKS[d.task]!;
  const ctl = new Int32Array(d.ctl), args = ctl.subarray(CTL.arg);
  const slots16 = new Uint16Array(d.slots, 0, n * p), slots32 = new Int32Array(d.slots, 0, n * p);
  const offset = new Int32Array(d.offset), nBins = new Int32Array(d.nBins);
  const cols = Array.from({ length: p }, (_, f) => new Uint8Array(d.cols, f * n, n));
  const y = new Float64Array(d.y), ghs = d.gh.map((b) => new Float64Array(b)), F = new Float64Array(d.F);
  const idx = new Int32Array(d.idx), out = new Float64Array(d.out), feats = new Int32Array(d.feats);
  const leafStart = new Int32Array(d.leafStart), leafEnd = new Int32Array(d.leafEnd);
  const leafValue = new Float64Array(d.leafValue);
  const scratch = new Int32Array(d.m), left = new Uint8Array(256);
  // Every job up to the last claimed one is done; one posted since (before this message came) is still open.
  let seen = Atomics.load(ctl, CTL.claim);
  for (;;) {
    waitFor(ctl, CTL.job, seen, true, CTL.helperSleeps, Infinity);
    const job = seen = Atomics.load(ctl, CTL.job);
    // The fitting thread took this job's second half itself: wait for the next.
    if (Atomics.compareExchange(ctl, CTL.claim, (job - 1) | 0, job) !== ((job - 1) | 0)) continue;
    const kind = ctl[CTL.kind]!;
    if (kind === JOB.release) return signal(ctl, CTL.done, job, CTL.mainSleeps);
    if (kind === JOB.fill) {
      const gh = ghs[args[0]!]!, start = args[1]!, end = args[2]!, c = args[3]!, a = args[5]!, b = args[6]!;
      const slots = args[9] ? slots32 : slots16;
      out.fill(0, args[7]!, args[8]!);
      if (args[4]) fillSome(out, slots, p, gh, idx, start, end, feats, a, b, c);
      else if (c === 3) fill3(out, slots, p, gh, idx, start, end, a, b);
      else fill2(out, slots, p, gh, idx, start, end, a, b);
    } else if (kind === JOB.partition) {
      const f = args[0]!, bin = args[1]!, ml = args[2] === 1, start = args[3]!, end = args[4]!;
      ctl[CTL.result] = partitionRows(cols[f]!, nBins[f]!, bin, ml, idx, scratch, left, start, end);
    } else if (kind === JOB.gradients) gradients(task, y, F, K, ghs, args[0]!, args[1]!);
    else if (kind === JOB.leaves) {
      addLeaves(F, K, args[0]!, idx, leafStart, leafEnd, leafValue, args[1]!, args[2]!, args[3]!);
    } else if (kind === JOB.bin) {
      const from = args[0]!, cells = new CellScratch(n);
      const edges = new Float64Array(d.edges), count = new Int32Array(d.edgeCount);
      for (let f = from; f < args[1]!; f++) {
        const e = binColumn(new Float64Array(d.raw, 8 * n * (f - from), n), maxBins, cells, cols[f]!);
        edges.set(e, f * maxBins), count[f] = e.length;
      }
    } else writeSlots(offset[p]! > 65536 ? slots32 : slots16, cols, offset, args[0]!, args[1]!);
    signal(ctl, CTL.done, job, CTL.mainSleeps);
  }
};
