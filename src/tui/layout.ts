// How a pane's rows are shared: pure arithmetic, so every size from 40x10 to 300x80 is decided
// the same way and tested without rendering. The list keeps a few rows; the detail pane
// shrinks first and collapses (0 rows) when too little is left, never overlapping the list.

/** Fewer rows than this and the detail pane is dropped (a rule and one line say little). */
export const MIN_DETAIL = 3;

export interface Split {
  list: number;
  detail: number;
}

/**
 * Rows for a list of `count` items and a detail pane that would like `want` rows, in `height`.
 * The detail pane never takes more than half the rows unless the list needs fewer.
 */
export function splitPane(height: number, count: number, want: number): Split {
  const h = Math.max(0, height);
  const listMin = Math.min(Math.max(1, count + (count > 3 ? 1 : 0)), 4);
  const listNeed = Math.max(1, count + (count > 1 ? 1 : 0));
  let detail = Math.min(want, h - listMin, Math.max(Math.ceil(h / 2), h - listNeed));
  if (detail < MIN_DETAIL) detail = 0;
  return { list: h - detail, detail };
}
