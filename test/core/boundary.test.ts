// The pure core's boundary (docs/ARCHITECTURE.md): no module under src/core touches the world.
// This walks the import graph of src/ and fails when a pure module imports node:fs,
// node:child_process, node:os, worker_threads, calls Bun.spawn, or imports an I/O module (one
// under src/io, or an edge: src/cli, src/hook, src/tui, src/demo). Type-only imports are erased
// at build time and so are allowed.
import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { sources } from "../helpers/sources.ts";

const SRC = path.resolve(import.meta.dir, "../../src");
const CORE = path.join(SRC, "core") + path.sep;
const FORBIDDEN = new Set(
  ["fs", "fs/promises", "child_process", "os", "worker_threads"].flatMap((m) => [m, `node:${m}`]),
);

/** Value imports of a module's text: static imports and re-exports that are not type-only, and dynamic imports. */
export function valueImports(text: string): string[] {
  const out: string[] = [];
  const stmt = /^\s*(import|export)\s+(type\s+)?([^;]*?)\s*from\s*["']([^"']+)["']/gm;
  for (const m of text.matchAll(stmt)) {
    if (m[2]) continue; // import type … / export type …
    const clause = m[3]!.trim();
    const braces = /^\{([^}]*)\}$/s.exec(clause);
    if (
      braces &&
      braces[1]!
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean)
        .every((s) => s.startsWith("type "))
    )
      continue;
    out.push(m[4]!);
  }
  for (const m of text.matchAll(/^\s*import\s+["']([^"']+)["']/gm)) out.push(m[1]!);
  for (const m of text.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g)) out.push(m[1]!);
  return out;
}

/** Why a pure module at `file` with `text` breaks the boundary, one line per reason. */
export function violations(file: string, text: string): string[] {
  const out: string[] = [];
  if (/\bBun\.spawn(Sync)?\b/.test(text)) out.push("calls Bun.spawn");
  for (const m of text.matchAll(/[rR]equire(?:\([^)]*\))?\(\s*["']((?:node:)?[\w/]+)["']\s*\)/g))
    if (FORBIDDEN.has(m[1]!)) out.push(`requires ${m[1]}`);
  for (const spec of valueImports(text)) {
    if (FORBIDDEN.has(spec)) out.push(`imports ${spec}`);
    else if (spec.startsWith(".")) {
      const target = path.resolve(path.dirname(file), spec);
      if (!target.startsWith(CORE)) out.push(`imports the I/O module ${path.relative(SRC, target)}`);
    }
  }
  return out;
}

describe("the pure core", () => {
  const files = sources(SRC);
  const pure = files.filter((f) => f.startsWith(CORE));
  const io = files.filter((f) => f.startsWith(path.join(SRC, "io") + path.sep));

  test("src/core holds the pure modules and src/io the modules that touch the world", () => {
    expect(pure.length).toBeGreaterThan(40);
    expect(io.length).toBeGreaterThan(10);
    // The reader owns the file system; if it stopped importing node:fs this test would be checking nothing.
    expect(violations(path.join(CORE, "x.ts"), fs.readFileSync(path.join(SRC, "io", "read.ts"), "utf8"))).toContain(
      "imports node:fs",
    );
  });

  test("no pure module imports node:fs, node:child_process, node:os, worker_threads, Bun.spawn or an I/O module", () => {
    const found = pure.flatMap((f) =>
      violations(f, fs.readFileSync(f, "utf8")).map((v) => `${path.relative(SRC, f)} ${v}`),
    );
    expect(found).toEqual([]);
  });

  test("the checker sees every way in: static, re-export, side-effect and dynamic imports; type-only imports pass", () => {
    const at = path.join(CORE, "plan", "x.ts");
    expect(violations(at, 'import * as fs from "node:fs";')).toEqual(["imports node:fs"]);
    expect(violations(at, 'import { spawn } from "child_process";')).toEqual(["imports child_process"]);
    expect(violations(at, 'export { readStable } from "../../io/read.ts";')).toEqual([
      "imports the I/O module io/read.ts",
    ]);
    expect(violations(at, 'import "node:os";')).toEqual(["imports node:os"]);
    expect(violations(at, 'const w = await import("node:worker_threads");')).toEqual(["imports node:worker_threads"]);
    expect(violations(at, 'import { out } from "../../cli/output.ts";')).toEqual([
      "imports the I/O module cli/output.ts",
    ]);
    expect(violations(at, 'const p = Bun.spawn(["sh"]);')).toEqual(["calls Bun.spawn"]);
    expect(violations(at, 'const { spawnSync } = createRequire(import.meta.url)("node:child_process");')).toEqual([
      "requires node:child_process",
    ]);
    expect(violations(at, 'import { type ScopeReader, readStable } from "../../io/read.ts";')).toEqual([
      "imports the I/O module io/read.ts",
    ]);
    expect(
      violations(
        at,
        'import type { ScopeReader } from "../../io/read.ts";\nimport { type Target } from "../../io/discover.ts";',
      ),
    ).toEqual([]);
    expect(violations(at, 'import { parsePlan } from "./table.ts";\nimport * as path from "node:path";')).toEqual([]);
  });
});

// ---- the layers (issue 26) -----------------------------------------------------------------
// core (pure) ← io (effects) ← ops (one function per use case) ← edges: cli/ (parse, one op,
// print), tui/ (panels → ops), hook/ (host adapters → the hook op). Counted on every import,
// type-only included: an edge that names an io type still knows io's shape, and io that names an
// op's type runs the layers backwards.

/** Every import specifier of a module's text, type-only included. */
export function allImports(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/^\s*(?:import|export)\s+(?:type\s+)?[^;]*?\s*from\s*["']([^"']+)["']/gm))
    out.push(m[1]!);
  for (const m of text.matchAll(/^\s*import\s+["']([^"']+)["']/gm)) out.push(m[1]!);
  for (const m of text.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g)) out.push(m[1]!);
  return out;
}

const layerOf = (file: string): string => path.relative(SRC, file).split(path.sep)[0]!;
/** A verb module: it exports a yargs verb (src/cli/index.ts loads it by name). */
const isVerb = (text: string) => /^export const (?:verb|demoVerb)\b/m.test(text);

/** Why `file` (with `text`) breaks a layer rule; `verbs` are the verb modules' paths. */
export function layerViolations(file: string, text: string, verbs: ReadonlySet<string>): string[] {
  const out: string[] = [];
  const from = layerOf(file);
  for (const spec of allImports(text)) {
    if (!spec.startsWith(".")) continue;
    const target = path.resolve(path.dirname(file), spec);
    const to = layerOf(target);
    const shown = path.relative(SRC, target);
    if (from === "core" && to === "io") out.push(`core imports io: ${shown}`);
    if ((from === "cli" || from === "tui" || from === "hook" || from === "demo") && to === "io")
      out.push(`${from} imports io (call an op): ${shown}`);
    if ((from === "io" || from === "core") && to === "ops")
      out.push(`${from} imports ops (a use case is above it): ${shown}`);
    if (from === "cli" && verbs.has(file) && verbs.has(target) && target !== file)
      out.push(`verb imports verb: ${shown}`);
  }
  return out;
}

/**
 * The modules that still break a rule today, file → the rules they break ("io": an edge imports io;
 * "verb": imports another verb; "core-io": core imports io; "ops": io or core imports ops). The list may only shrink: the use-case
 * layer is being built verb by verb (issue 26). A module not listed that breaks a rule fails, and
 * so does a listed one that no longer breaks it (remove it from the list).
 */
const KNOWN: Record<string, string[]> = JSON.parse(
  fs.readFileSync(path.join(import.meta.dir, "layers.known.json"), "utf8"),
);

const ruleOf = (reason: string) =>
  reason.startsWith("verb imports verb")
    ? "verb"
    : reason.startsWith("core imports io")
      ? "core-io"
      : / imports ops /.test(reason)
        ? "ops"
        : "io";

describe("the layers", () => {
  const files = sources(SRC);
  const verbs = new Set(files.filter((f) => layerOf(f) === "cli" && isVerb(fs.readFileSync(f, "utf8"))));
  const found: Record<string, string[]> = {};
  const detail: string[] = [];
  for (const f of files) {
    const v = layerViolations(f, fs.readFileSync(f, "utf8"), verbs);
    if (v.length > 0) found[path.relative(SRC, f)] = [...new Set(v.map(ruleOf))].sort();
    for (const r of v) detail.push(`${path.relative(SRC, f)}: ${r}`);
  }

  test("no layer rule is broken beyond the known list, and the known list holds nothing already fixed", () => {
    const unexpected = detail.filter(
      (d) => !(KNOWN[d.slice(0, d.indexOf(":"))] ?? []).includes(ruleOf(d.slice(d.indexOf(":") + 2))),
    );
    expect(unexpected).toEqual([]);
    expect(found).toEqual(KNOWN);
  });

  test("no verb imports another verb; core imports nothing of io, not even a type; io and core import no ops (beyond the known list)", () => {
    const listed = (rule: string) => Object.keys(KNOWN).filter((f) => KNOWN[f]!.includes(rule));
    expect(Object.keys(found).filter((f) => found[f]!.includes("verb"))).toEqual(listed("verb"));
    expect(Object.keys(found).filter((f) => found[f]!.includes("core-io"))).toEqual(listed("core-io"));
    expect(Object.keys(found).filter((f) => found[f]!.includes("ops"))).toEqual(listed("ops"));
    expect(verbs.size).toBeGreaterThan(15);
  });

  test("the checker fails on an injected cli→io import, a verb importing a verb, core→io (type-only too), tui→io, hook→io and io→ops", () => {
    const cliFile = path.join(SRC, "cli", "status.ts");
    const verbs = new Set([cliFile, path.join(SRC, "cli", "next.ts")]);
    expect(layerViolations(cliFile, 'import { loadSnapshot } from "../io/read.ts";', verbs)).toEqual([
      "cli imports io (call an op): io/read.ts",
    ]);
    expect(layerViolations(cliFile, 'import type { Snapshot } from "../io/read.ts";', verbs)).toEqual([
      "cli imports io (call an op): io/read.ts",
    ]);
    expect(layerViolations(cliFile, 'import { verb as next } from "./next.ts";', verbs)).toEqual([
      "verb imports verb: cli/next.ts",
    ]);
    expect(layerViolations(cliFile, 'const m = await import("./next.ts");', verbs)).toEqual([
      "verb imports verb: cli/next.ts",
    ]);
    expect(
      layerViolations(
        cliFile,
        'import { out } from "./output.ts";\nimport { statusOp } from "../ops/status.ts";',
        verbs,
      ),
    ).toEqual([]);
    expect(
      layerViolations(
        path.join(SRC, "core", "trace.ts"),
        'import type { Store } from "../io/receipts/file.ts";',
        verbs,
      ),
    ).toEqual(["core imports io: io/receipts/file.ts"]);
    expect(
      layerViolations(path.join(SRC, "tui", "App.tsx"), 'import { readStable } from "../io/read.ts";', verbs),
    ).toEqual(["tui imports io (call an op): io/read.ts"]);
    expect(
      layerViolations(path.join(SRC, "tui", "App.tsx"), 'import { dashboardView } from "../ops/dashboard.ts";', verbs),
    ).toEqual([]);
    const hookEntry = path.join(SRC, "hook", "entry.ts");
    expect(layerViolations(hookEntry, 'import { loadSnapshot } from "../io/read.ts";', verbs)).toEqual([
      "hook imports io (call an op): io/read.ts",
    ]);
    expect(layerViolations(hookEntry, 'import { hookStop } from "../ops/hookStop.ts";', verbs)).toEqual([]);
    const demo = path.join(SRC, "demo", "driver.ts");
    expect(layerViolations(demo, 'import { commitDispatch } from "../io/dispatch/transition.ts";', verbs)).toEqual([
      "demo imports io (call an op): io/dispatch/transition.ts",
    ]);
    expect(layerViolations(demo, 'import { demoDispatch } from "../ops/demo.ts";', verbs)).toEqual([]);
    const ioFile = path.join(SRC, "io", "check", "run.ts");
    expect(layerViolations(ioFile, 'import { checkOp } from "../../ops/check.ts";', verbs)).toEqual([
      "io imports ops (a use case is above it): ops/check.ts",
    ]);
    expect(layerViolations(ioFile, 'import type { ApprovalView } from "../../ops/approvalView.ts";', verbs)).toEqual([
      "io imports ops (a use case is above it): ops/approvalView.ts",
    ]);
    expect(
      layerViolations(path.join(SRC, "core", "trace.ts"), 'import { statusOp } from "../ops/status.ts";', verbs),
    ).toEqual(["core imports ops (a use case is above it): ops/status.ts"]);
  });
});

// ---- no import circle under io/ ---------------------------------------------------------------
// io/read.ts (the stable read) stands at the bottom, the scope read (io/scope.ts) above the
// coordination port, the snapshot assembly in ops (docs/ARCHITECTURE.md). A circle among io's
// modules is how the one reader once became both the lowest primitive and the top composition.
// Every import counts, type-only included: a type tie is a tie of shapes.

/** The circles (strongly connected components of more than one file, or a file importing itself) of `graph`. */
export function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const part: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        part.push(w);
      } while (w !== v);
      if (part.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(part.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return out;
}

/** The import graph of the modules under `dir` (every import, type-only included), paths relative to src/. */
function importGraph(dir: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const f of sources(dir)) {
    const deps = allImports(fs.readFileSync(f, "utf8"))
      .filter((s) => s.startsWith("."))
      .map((s) => path.relative(SRC, path.resolve(path.dirname(f), s)));
    graph.set(path.relative(SRC, f), deps);
  }
  return graph;
}

describe("io/ has no import circle", () => {
  test("no circle among the modules under src/io, type-only imports counted", () => {
    expect(circles(importGraph(path.join(SRC, "io")))).toEqual([]);
  });

  test("the circle finder finds a loop of three, a pair and a self-import, and passes a chain", () => {
    const g = (edges: Record<string, string[]>) => new Map(Object.entries(edges));
    expect(circles(g({ a: ["b"], b: ["c"], c: ["a"], d: ["a"] }))).toEqual([["a", "b", "c"]]);
    expect(circles(g({ a: ["b"], b: ["a"], c: ["c"] }))).toEqual([["a", "b"], ["c"]]);
    expect(circles(g({ a: ["b"], b: ["c"], c: [] }))).toEqual([]);
  });
});
