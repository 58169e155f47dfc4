// A rolling pool (docs/formats.md#check-run): up to `limit` tasks at once, each free slot takes the next
// task in order; results are stored by index so callers report in task order.
export async function runRolling<T, R>(
  items: T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const slot = async () => {
    for (;;) {
      const i = next++;
      if (i >= items.length) return;
      results[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, slot));
  return results;
}
