// Id order. schedule.mjs sorts ids by UTF-16 code units ("10" before "2", docs/formats.md#ids);
// kbz sorts them naturally by default and keeps the original order behind a switch.

export type IdCompare = (a: string, b: string) => number;

export function codeUnitCompare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** Digit runs compare as numbers, everything else by code units; a total order (ties fall back to code units). */
export function naturalCompare(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const ca = a.charCodeAt(i);
    const cb = b.charCodeAt(j);
    if (isDigit(ca) && isDigit(cb)) {
      let ei = i;
      while (ei < a.length && isDigit(a.charCodeAt(ei))) ei++;
      let ej = j;
      while (ej < b.length && isDigit(b.charCodeAt(ej))) ej++;
      let si = i;
      while (si < ei - 1 && a.charCodeAt(si) === 48) si++;
      let sj = j;
      while (sj < ej - 1 && b.charCodeAt(sj) === 48) sj++;
      const la = ei - si;
      const lb = ej - sj;
      if (la !== lb) return la < lb ? -1 : 1;
      for (let k = 0; k < la; k++) {
        const d = a.charCodeAt(si + k) - b.charCodeAt(sj + k);
        if (d !== 0) return d < 0 ? -1 : 1;
      }
      i = ei;
      j = ej;
      continue;
    }
    if (ca !== cb) return ca < cb ? -1 : 1;
    i++;
    j++;
  }
  if (i < a.length) return 1;
  if (j < b.length) return -1;
  return codeUnitCompare(a, b);
}

export type IdOrder = "natural" | "original";

export function idCompare(order: IdOrder): IdCompare {
  return order === "original" ? codeUnitCompare : naturalCompare;
}
