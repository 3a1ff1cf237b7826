/**
 * Async work over a list, at most `limit` at a time (the run's executors: both cores busy, never more),
 * results in the list's order.
 *
 * @module
 */

export async function inPool<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, i: number) => Promise<R>,
): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const work = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, work));
  return out;
}
