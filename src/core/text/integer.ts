// The one rule for an integer given as text (a flag's value, an environment variable): decimal
// digits, no sign, no leading zero (Kill_bezzangyi's `--slots` rule), a safe integer within
// [min, max]. Each caller says in its own words what it expected; this only decides.

const DIGITS = /^(0|[1-9][0-9]*)$/;

/** The integer `raw` spells, or null when it is not one within [min, max]. */
export function parseInteger(raw: unknown, min: number, max: number = Number.MAX_SAFE_INTEGER): number | null {
  if (typeof raw !== "string" && typeof raw !== "number") return null;
  const text = String(raw);
  if (!DIGITS.test(text)) return null;
  const n = Number(text);
  return Number.isSafeInteger(n) && n >= min && n <= max ? n : null;
}
