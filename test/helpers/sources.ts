// The TypeScript sources below a folder (src/ by default), for the tests that read the code as text.
import * as fs from "node:fs";
import * as path from "node:path";

export const SRC = path.resolve(import.meta.dir, "../../src");

export function sources(dir: string = SRC): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...sources(p));
    else if (/\.tsx?$/.test(e.name) && !e.name.endsWith(".d.ts")) out.push(p);
  }
  return out;
}
