// Repository text on the dashboard: one line, no control or bidi characters, fitted to a width
// measured in terminal columns (string-width: a CJK character or an emoji takes two columns,
// a combining mark none), so titles in any script line up.
import stringWidth from "string-width";
import { sanitize } from "../core/text/sanitize.ts";

/** Sanitized single-line text; newlines and tabs become spaces. */
export function safe(text: string): string {
  return sanitize(text);
}

// Printable ASCII is one column a character: the common case skips the segmenter.
const ASCII = /^[\x20-\x7e]*$/;

/** Columns `text` takes on a terminal. */
export function cols(text: string): number {
  return ASCII.test(text) ? text.length : stringWidth(text);
}

let segmenter: Intl.Segmenter | null = null;

/** Graphemes of `text` with their widths, in order. */
function* graphemes(text: string): Generator<[string, number]> {
  segmenter ??= new Intl.Segmenter();
  for (const { segment } of segmenter.segment(text)) yield [segment, stringWidth(segment)];
}

/** The longest prefix of (already safe) `text` that fits `width` columns, and its width. */
export function takeCols(text: string, width: number): [string, number] {
  if (ASCII.test(text)) {
    const s = text.slice(0, Math.max(0, width));
    return [s, s.length];
  }
  let out = "";
  let used = 0;
  for (const [g, w] of graphemes(text)) {
    if (used + w > width) break;
    out += g;
    used += w;
  }
  return [out, used];
}

/** Sanitized and cut to `width` columns with an ellipsis (the dashboard never wraps a row). */
export function fit(text: string, width: number): string {
  const flat = sanitize(text);
  if (width <= 0) return "";
  if (cols(flat) <= width) return flat;
  if (width === 1) return "…";
  return takeCols(flat, width - 1)[0] + "…";
}

/** `fit`, then spaces up to exactly `width` columns. */
export function pad(text: string, width: number): string {
  const cut = fit(text, width);
  return cut + " ".repeat(Math.max(0, width - cols(cut)));
}

/**
 * Sanitized text broken into rows of at most `width` columns, keeping every character: after a
 * space, colon or comma when one falls in the second half of the row (PATH entries, words),
 * otherwise at the width. Newlines in the text start new rows when `keepLines` is set.
 */
export function wrap(text: string, width: number, keepLines = false): string[] {
  if (width <= 0) return [];
  const parts = keepLines ? text.split(/\r?\n/).map(sanitize) : [sanitize(text)];
  const rows: string[] = [];
  for (const part of parts) {
    let rest = part;
    if (rest === "") rows.push("");
    while (rest !== "") {
      if (cols(rest) <= width) {
        rows.push(rest);
        break;
      }
      let [chunk] = takeCols(rest, width);
      if (chunk === "") chunk = [...rest][0]!; // a 2-column grapheme in a 1-column box
      const brk = Math.max(chunk.lastIndexOf(" "), chunk.lastIndexOf(":"), chunk.lastIndexOf(","));
      if (brk >= chunk.length / 2 && brk < chunk.length - 1) chunk = chunk.slice(0, brk + 1);
      rows.push(chunk);
      rest = rest.slice(chunk.length);
    }
  }
  return rows;
}
