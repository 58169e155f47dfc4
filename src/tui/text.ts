// Repository text on the dashboard: one line, no control or bidi characters, fitted to a width.
import { sanitize } from "../core/text/sanitize.ts";

/** Sanitized single-line text; newlines and tabs become spaces. */
export function safe(text: string): string {
  return sanitize(text);
}

/** Sanitized and cut to `width` columns with an ellipsis (the dashboard never wraps a row). */
export function fit(text: string, width: number): string {
  const flat = sanitize(text);
  if (width <= 0) return "";
  if (flat.length <= width) return flat;
  return width === 1 ? "…" : flat.slice(0, width - 1) + "…";
}

export function pad(text: string, width: number): string {
  const cut = fit(text, width);
  return cut + " ".repeat(Math.max(0, width - cut.length));
}
