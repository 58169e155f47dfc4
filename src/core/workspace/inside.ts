// Path containment, decided on absolute paths alone (no file system access).
import * as path from "node:path";

/** `child` is `parent` or below it. Both absolute; a plain prefix answers most calls without path.relative. */
export function isInside(parent: string, child: string): boolean {
  if (child === parent) return true;
  const base = parent.endsWith(path.sep) ? parent : parent + path.sep;
  if (path.sep === "/" && child.startsWith(base) && !child.includes("/..")) return true;
  const rel = path.relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}
