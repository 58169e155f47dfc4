// OWNS globs: normalisation and the conservative overlap test (unlazy §5.4).
// Leases, the scheduler and the dashboard all decide overlap with `globsOverlap`.

export type GlobResult = { ok: true; glob: string } | { ok: false; error: string };

export function normalizeOwnsPath(raw: string): GlobResult {
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
