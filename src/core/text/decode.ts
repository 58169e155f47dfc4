// Ledger bytes to text (docs/formats.md#ledger): UTF-8 without BOM or NUL, or one located reason why not.

export const MAX_LEDGER_BYTES = 8 * 1024 * 1024;

/** Byte offset of the first invalid UTF-8 sequence, or -1. */
export function firstInvalidUtf8(b: Uint8Array): number {
  let i = 0;
  const n = b.length;
  while (i < n) {
    const c = b[i]!;
    if (c < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let min: number;
    if (c >= 0xc2 && c <= 0xdf) (need = 1), (min = 0x80);
    else if (c >= 0xe0 && c <= 0xef) (need = 2), (min = 0x800);
    else if (c >= 0xf0 && c <= 0xf4) (need = 3), (min = 0x10000);
    else return i;
    let cp = c & (0x3f >> need);
    for (let k = 1; k <= need; k++) {
      const cc = b[i + k];
      if (cc === undefined || (cc & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (cc & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += need + 1;
  }
  return -1;
}

export function lineAt(b: Uint8Array, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset; i++) if (b[i] === 10) line++;
  return line;
}

const FATAL_UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Decode a ledger's bytes as text, or say exactly what is wrong and where. */
export function decodeLedgerText(b: Buffer): { text: string } | { line: number; message: string } {
  // A leading UTF-8 byte-order mark (editors write one) is stripped, so a gate on line 1 is seen;
  // a writeback saves the ledger without it.
  if (b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) b = b.subarray(3);
  const nul = b.indexOf(0);
  if (nul >= 0)
    return { line: lineAt(b, nul), message: "contains a NUL byte; a ledger is UTF-8 text, not binary data" };
  try {
    return { text: FATAL_UTF8.decode(b) };
  } catch {
    const bad = firstInvalidUtf8(b);
    return { line: lineAt(b, bad), message: `invalid UTF-8 at byte ${bad}; a ledger must be UTF-8 text` };
  }
}
