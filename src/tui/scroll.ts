// The window of a scrolling list: which rows are visible. Only these rows are rendered,
// so a list of 10,000 rows costs what a screenful costs.

/** First visible index after moving the selection, keeping the previous window when possible. */
export function scrollWindow(prevStart: number, selected: number, count: number, height: number): number {
  if (height <= 0 || count <= height) return 0;
  let start = Math.min(Math.max(prevStart, 0), count - height);
  if (selected < start) start = selected;
  else if (selected >= start + height) start = selected - height + 1;
  return Math.max(0, Math.min(start, count - height));
}

/** A selection moved by `delta` rows, clamped to the list. */
export function moveSelection(selected: number, delta: number, count: number): number {
  if (count === 0) return 0;
  return Math.max(0, Math.min(count - 1, selected + delta));
}
