// One place decides which characters from repository text may reach a terminal.
// C0/C1 controls, DEL and the line/paragraph separators can repaint a terminal line: they become
// spaces. Format characters (Unicode category Cf: zero-width space and joiners U+200B-U+200D,
// the bidi marks and embeddings/isolates, U+2060-U+2064, U+FEFF, soft hyphen, tag characters)
// are invisible or reorder text, so `ca\u200bt` would show as `cat`: they are shown escaped as
// visible `\uXXXX` (`\u{XXXXX}` beyond the BMP), so a reader sees that something is there.

const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
const FORMAT = /\p{Cf}/gu;
const UNSAFE_TEST = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\p{Cf}]/u;
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\p{Cf}]/gu;

export function hasUnsafe(text: string): boolean {
  return UNSAFE_TEST.test(text);
}

function escapeFormat(ch: string): string {
  const cp = ch.codePointAt(0)!;
  return cp > 0xffff ? `\\u{${cp.toString(16)}}` : "\\u" + cp.toString(16).padStart(4, "0");
}

/** Controls become spaces, format characters visible escapes (single-line repository text). */
export function sanitize(text: string): string {
  return UNSAFE_TEST.test(text) ? text.replace(CONTROL, " ").replace(FORMAT, escapeFormat) : text;
}

// unlazy's own transcript rule (evidence bytes must stay identical): these become spaces.
const TRANSCRIPT_UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ufeff]/g;

/** Evidence transcript fields: unlazy's set of controls and bidi characters as spaces. */
export function transcriptSafe(text: string): string {
  return text.replace(TRANSCRIPT_UNSAFE, " ");
}

/** Like sanitize, then collapse runs of whitespace and cap the length. */
export function sanitizeCompact(text: string, max = 500): string {
  const flat = sanitize(text).replace(/\s+/g, " ").trim();
  return flat.length > max ? flat.slice(0, max - 3) + "..." : flat;
}

function escapeChar(ch: string): string {
  const code = ch.codePointAt(0)!;
  if (code > 0xffff) return escapeFormat(ch);
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
const JSON_RAW_UNSAFE = /[\u007f-\u009f\u2028\u2029\p{Cf}]/gu;

/** JSON's own escape: one \\uXXXX per UTF-16 unit (a surrogate pair beyond the BMP). */
function jsonEscape(ch: string): string {
  let out = "";
  for (let i = 0; i < ch.length; i++) out += "\\u" + ch.charCodeAt(i).toString(16).padStart(4, "0");
  return out;
}

export function terminalJson(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(JSON_RAW_UNSAFE, jsonEscape);
}
