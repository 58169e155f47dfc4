// One place decides which characters from repository text may reach a terminal.
// C0/C1 controls, DEL and the bidi/line-separator code points can repaint or
// reorder a terminal line, so they never pass through unescaped.

const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ufeff]/g;
const UNSAFE_TEST = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ufeff]/;

export function hasUnsafe(text: string): boolean {
  return UNSAFE_TEST.test(text);
}

/** Replace every unsafe character with a space (single-line repository text). */
export function sanitize(text: string): string {
  return UNSAFE_TEST.test(text) ? text.replace(UNSAFE, " ") : text;
}

/** Like sanitize, then collapse runs of whitespace and cap the length. */
export function sanitizeCompact(text: string, max = 500): string {
  const flat = sanitize(text).replace(/\s+/g, " ").trim();
  return flat.length > max ? flat.slice(0, max - 3) + "..." : flat;
}

function escapeChar(ch: string): string {
  const code = ch.charCodeAt(0);
  return code <= 0xff ? "\\x" + code.toString(16).padStart(2, "0") : "\\u" + code.toString(16).padStart(4, "0");
}

/** Show unsafe characters as visible `\xHH` / `\uHHHH` text (lint and dispatch style). */
export function escapeUnsafe(text: string): string {
  return UNSAFE_TEST.test(text) ? text.replace(UNSAFE, escapeChar) : text;
}

/** Escape, then cap the UTF-8 size of one field with a visible marker. */
export function escapeField(text: string, maxBytes: number): string {
  const escaped = escapeUnsafe(text);
  if (Buffer.byteLength(escaped) <= maxBytes) return escaped;
  const marker = "...[truncated]";
  let cut = escaped.slice(0, maxBytes);
  while (Buffer.byteLength(cut) + marker.length > maxBytes && cut.length > 0) {
    cut = cut.slice(0, Math.max(0, cut.length - Math.max(1, Buffer.byteLength(cut) + marker.length - maxBytes)));
  }
  return cut + marker;
}

/**
 * JSON for a terminal: JSON.stringify already escapes C0 controls, but passes
 * C1, bidi and line separators through raw; escape those as \uXXXX so the data
 * stays exact while the bytes stay inert.
 */
const JSON_RAW_UNSAFE = /[\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ufeff]/g;

export function terminalJson(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(JSON_RAW_UNSAFE, (ch) => "\\u" + ch.charCodeAt(0).toString(16).padStart(4, "0"));
}
