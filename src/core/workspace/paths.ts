// OWNS globs: normalisation and the conservative overlap test (docs/formats.md#leases).
// Leases, the scheduler and the dashboard all decide overlap with `globsOverlap`.

export type GlobResult = { ok: true; glob: string } | { ok: false; error: string };

/**
 * A path already in normal form: no surrounding space, backslash or NUL, not absolute or
 * drive-lettered, and every segment nonblank and neither "." nor "..". Such a path normalizes to
 * itself; checking that by scanning is much cheaper than splitting (PLANs hold 10,000s of paths).
 */
function alreadyNormal(raw: string): boolean {
  const n = raw.length;
  if (n === 0) return false;
  // Ends outside printable ASCII take the general path: trim() also strips Unicode spaces.
  const first = raw.charCodeAt(0);
  const last = raw.charCodeAt(n - 1);
  if (first <= 32 || first >= 127 || last <= 32 || last >= 127 || first === 47 /* / */) return false;
  if (n >= 2 && raw.charCodeAt(1) === 58 /* : */) return false;
  let start = 0;
  for (let i = 0; i <= n; i++) {
    const c = i === n ? 47 : raw.charCodeAt(i);
    if (c === 92 /* \ */ || c === 0) return false;
    if (c !== 47) continue;
    const len = i - start;
    if (len === 0) return false;
    if (raw.charCodeAt(start) === 46 /* . */ && (len === 1 || (len === 2 && raw.charCodeAt(start + 1) === 46)))
      return false;
    start = i + 1;
  }
  return true;
}

export function normalizeOwnsPath(raw: string): GlobResult {
  return alreadyNormal(raw) ? { ok: true, glob: raw } : normalizeOwnsPathInFull(raw);
}

/** The normalisation itself, without the fast path (exported so tests compare the two). */
export function normalizeOwnsPathInFull(raw: string): GlobResult {
  let value = raw.trim().replace(/\\/g, "/");
  if (value.startsWith("./")) value = value.slice(2);
  if (value === "") return { ok: false, error: "OWNS path is blank" };
  if (value.startsWith("/") || /^[A-Za-z]:/.test(value)) {
    return { ok: false, error: `OWNS path must be relative: ${raw.trim()}` };
  }
  const segments = value.split("/");
  if (value.includes("\0") || segments.includes("..")) {
    return { ok: false, error: `OWNS path cannot contain traversal: ${raw.trim()}` };
  }
  const kept = segments.filter((s) => s !== "" && s !== ".");
  if (kept.length === 0) return { ok: false, error: `OWNS path cannot claim an implicit root: ${raw.trim()}` };
  return { ok: true, glob: kept.join("/") };
}

const WILD = /[*?[{]/;

/** Conservative: true unless some compared segment pair is two different literals. */
export function globsOverlap(a: string, b: string): boolean {
  const na = normalizeOwnsPath(a);
  const nb = normalizeOwnsPath(b);
  if (!na.ok || !nb.ok) return true;
  const sa = na.glob.split("/");
  const sb = nb.glob.split("/");
  const n = Math.min(sa.length, sb.length);
  for (let i = 0; i < n; i++) {
    if (WILD.test(sa[i]!) || WILD.test(sb[i]!)) return true;
    if (sa[i] !== sb[i]) return false;
  }
  return true;
}
