// React and Ink load only for the dashboard: every static import reachable from the entry, the
// CLI and the hook stays clear of them (the TUI is reached through `await import()` only).
import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { REPO } from "../helpers/kbz.ts";

const STATIC_IMPORT = /^\s*(?:import|export)\s+(?!type\b)(?:[^"';]*?\s+from\s+)?["']([^"']+)["']/gm;

/** Files and packages reachable from `entry` through static, non-type imports. */
function staticClosure(entry: string): Set<string> {
  const seen = new Set<string>();
  const stack = [entry];
  while (stack.length > 0) {
    const file = stack.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    if (!file.startsWith("/")) continue; // a package: recorded, not followed
    const text = fs.readFileSync(file, "utf8");
    for (const m of text.matchAll(STATIC_IMPORT)) {
      const spec = m[1]!;
      if (spec.startsWith(".")) stack.push(path.resolve(path.dirname(file), spec));
      else stack.push(spec.replace(/^node:/, "node:"));
    }
  }
  return seen;
}

describe("lazy dashboard", () => {
  test("the entry, the Stop hook and every CLI verb import no React, Ink, chokidar or src/tui statically", () => {
    const reach = staticClosure(path.join(REPO, "src/main.ts"));
    const hook = staticClosure(path.join(REPO, "src/hook/entry.ts"));
    // Verb modules are loaded on demand by src/cli/index.ts, so walk each of them too.
    const cli = new Set<string>();
    for (const f of fs.readdirSync(path.join(REPO, "src/cli"))) {
      if (f.endsWith(".ts")) for (const m of staticClosure(path.join(REPO, "src/cli", f))) cli.add(m);
    }
    expect(hook.size).toBeGreaterThan(3);
    for (const set of [reach, hook, cli]) {
      const bad = [...set].filter(
        (f) => f === "react" || f === "ink" || f.startsWith("react/") || f.includes("/src/tui/") || f === "chokidar",
      );
      expect(bad).toEqual([]);
    }
    expect(cli.has(path.join(REPO, "src/cli/dash.ts"))).toBe(true);
  });

  test("the dashboard itself does reach Ink (the walker sees packages)", () => {
    const reach = staticClosure(path.join(REPO, "src/tui/run.tsx"));
    expect(reach.has("ink")).toBe(true);
    expect(reach.has(path.join(REPO, "src/ops/dashboardWatch.ts"))).toBe(true);
  });
});
