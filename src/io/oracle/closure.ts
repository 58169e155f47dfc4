// The static closure (issue 39; docs/checks.md#oracle): what an oracle file reaches without running
// it. It stands in for the tracer where none runs, and adds to it where one does (a file the
// approval run did not happen to read is still bound when the oracle names it). Read from the text:
// relative JS/TS imports (`import … from "./x"`, `import("./x")`, `require("./x")`, `export … from`),
// Python imports (`import a.b`, `from .x import y`, resolved beside the file, in the CHECK
// directory and the root), shell `source`/`.`, and in configs (package.json, bunfig.toml, jest and
// vitest configs, .mocharc) every quoted relative path that names a file (`preload = ["./setup.ts"]`,
// `setupFiles: ["<rootDir>/jest.setup.js"]`). The configs of the runners a CHECK calls are found
// by name in its directory and the root (`configsFor`).
import * as fs from "node:fs";
import * as path from "node:path";
import { isInside } from "../../core/workspace/inside.ts";
import { MAX_ORACLE_FILE_BYTES } from "./digest.ts";

const JS_EXT = /\.(m?[jt]sx?|c[jt]s)$/;
const JS_TRY = [
  "",
  ".js",
  ".mjs",
  ".cjs",
  ".ts",
  ".mts",
  ".cts",
  ".tsx",
  ".jsx",
  ".json",
  "/index.js",
  "/index.mjs",
  "/index.ts",
  "/index.cjs",
];
const JS_IMPORT = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*|\bimport\s+)(["'`])(\.{1,2}\/[^"'`\n]*)\1/g;
const PY_IMPORT = /^[ \t]*(?:from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+([\w, \t*()]+)|import[ \t]+([\w., \t]+))/gm;
const SH_SOURCE = /(?:^|[;&|{(]\s*|\bthen\s+|\bdo\s+|\belse\s+)(?:source|\.)[ \t]+([^;&|\n]+)/gm;
const QUOTED_PATH = /(["'])((?:\.{1,2}\/|<rootDir>\/)[^"'\n]+)\1/g;

function isFile(abs: string): boolean {
  try {
    return fs.statSync(abs).isFile();
  } catch {
    return false;
  }
}

/** The text of a small regular file, or null. */
export function smallText(abs: string): string | null {
  try {
    const st = fs.statSync(abs);
    if (!st.isFile() || st.size > MAX_ORACLE_FILE_BYTES) return null;
    return fs.readFileSync(abs, "utf8");
  } catch {
    return null;
  }
}

function jsTarget(from: string, spec: string): string | null {
  const base = path.resolve(path.dirname(from), spec.split("?")[0]!);
  for (const ext of JS_TRY) if (isFile(base + ext)) return base + ext;
  return null;
}

function pyTarget(dirs: string[], dotted: string): string | null {
  const rel = dotted.split(".").filter(Boolean).join("/");
  if (!rel) return null;
  for (const d of dirs) {
    for (const c of [`${rel}.py`, `${rel}/__init__.py`]) if (isFile(path.join(d, c))) return path.join(d, c);
  }
  return null;
}

function isShell(abs: string, text: string): boolean {
  return /\.(sh|bash|zsh|ksh)$/.test(abs) || /^#!.*\b(sh|bash|dash|zsh|ksh)\b/.test(text.slice(0, 120));
}

/**
 * The files `abs` reaches as code or config (absolute, existing, inside `root`). `cwd` is the
 * CHECK directory (Python's and the shell's relative lookups start there too).
 */
export function reachedFrom(abs: string, root: string, cwd: string): string[] {
  const text = smallText(abs);
  if (text === null) return [];
  const out = new Set<string>();
  const add = (p: string | null) => {
    if (p && p !== abs && isInside(root, p)) out.add(p);
  };
  const base = path.basename(abs);
  if (JS_EXT.test(abs)) {
    for (const m of text.matchAll(JS_IMPORT)) add(jsTarget(abs, m[2]!));
  }
  if (abs.endsWith(".py")) {
    const dirs = [path.dirname(abs), cwd, root];
    for (const m of text.matchAll(PY_IMPORT)) {
      if (m[4] !== undefined) {
        for (const mod of m[4].split(",")) add(pyTarget(dirs, mod.trim().split(/\s+/)[0]!));
        continue;
      }
      const dots = m[1]!.length;
      let from = dirs;
      if (dots > 0) {
        let d = path.dirname(abs);
        for (let k = 1; k < dots; k++) d = path.dirname(d);
        from = [d];
      }
      const mod = m[2]!;
      add(pyTarget(from, mod));
      // `from pkg import mod` may name submodules.
      for (const name of m[3]!.replace(/[()]/g, "").split(",")) {
        const n = name.trim().split(/\s+/)[0]!;
        if (n && n !== "*") add(pyTarget(from, mod ? `${mod}.${n}` : n));
      }
    }
  }
  if (isShell(abs, text)) {
    for (const m of text.matchAll(SH_SOURCE)) {
      // `"$(dirname "$0")/lib.sh"`, `${0%/*}/lib.sh`, `$DIR/lib.sh`, `$SCRIPT_DIR/…`: beside the script.
      const here = "\u0000";
      let target = m[1]!
        .trim()
        .replace(/\$\(dirname [^)]*\)|\$\{0%\/\*\}|\$\{?(?:DIR|SCRIPT_DIR|HERE|BASEDIR)\}?/, here);
      target = target.replace(/["']/g, "").split(/\s+/)[0]!.replace(here, path.dirname(abs));
      if (target.includes("$")) continue;
      const candidates = path.isAbsolute(target)
        ? [target]
        : [path.resolve(cwd, target), path.resolve(path.dirname(abs), target)];
      add(candidates.find(isFile) ?? null);
    }
  }
  if (
    base === "package.json" ||
    (/\.(toml|json|ya?ml|cjs|mjs|js|ts)$/.test(base) && /config|setup|rc|bunfig/.test(base)) ||
    base.startsWith(".mocharc")
  ) {
    for (const m of text.matchAll(QUOTED_PATH)) {
      const p = m[2]!.startsWith("<rootDir>/")
        ? path.join(cwd, m[2]!.slice("<rootDir>/".length))
        : path.resolve(path.dirname(abs), m[2]!);
      add(
        isFile(p)
          ? p
          : jsTarget(abs, m[2]!.startsWith("<rootDir>/") ? path.relative(path.dirname(abs), p) || "." : m[2]!),
      );
    }
  }
  return [...out];
}

/** Configs by name: what the runner a CHECK calls reads on its own (looked for in `dirs`). */
const RUNNER_CONFIGS: Record<string, string[]> = {
  pm: [".npmrc", ".yarnrc", ".yarnrc.yml", ".pnpmfile.cjs", "bunfig.toml"],
  bun: ["bunfig.toml"],
  js: [
    "vitest.config.ts",
    "vitest.config.js",
    "vitest.config.mjs",
    "vitest.config.mts",
    "vitest.config.cjs",
    "vitest.workspace.ts",
    "vite.config.ts",
    "vite.config.js",
    "vite.config.mjs",
    "jest.config.js",
    "jest.config.ts",
    "jest.config.mjs",
    "jest.config.cjs",
    "jest.config.json",
    "jest.setup.js",
    "jest.setup.ts",
    ".mocharc.js",
    ".mocharc.cjs",
    ".mocharc.json",
    ".mocharc.jsonc",
    ".mocharc.yml",
    ".mocharc.yaml",
    "ava.config.js",
    "ava.config.mjs",
    "playwright.config.ts",
    "playwright.config.js",
    "babel.config.js",
    "babel.config.json",
    ".babelrc",
    "tsconfig.json",
  ],
  py: ["pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini", "conftest.py"],
};

/**
 * The configs present for what the CHECK runs: `programs` (by name) and `runners` (as lint names
 * them), looked for in `cwd` and `root`. Package-manager scripts read `.npmrc` (a `script-shell`
 * there replaces the shell), `bun` reads `bunfig.toml` (its `preload` runs first).
 */
export function configsFor(
  programs: readonly string[],
  runners: readonly string[],
  hasScripts: boolean,
  cwd: string,
  root: string,
): string[] {
  const kinds = new Set<string>();
  const all = [...programs, ...runners.map((r) => r.split(" ")[0]!), ...runners.map((r) => r.split(" ").slice(-1)[0]!)];
  if (hasScripts || all.some((p) => /^(npm|pnpm|yarn|npx|pnpx)$/.test(p))) kinds.add("pm").add("js").add("py");
  if (all.some((p) => p === "bun" || p === "bunx")) kinds.add("bun").add("js");
  if (
    all.some((p) => /^(vitest|jest|mocha|ava|playwright|tap|tape|uvu|jasmine|karma|tsx|ts-node|vite-node)$/.test(p)) ||
    runners.includes("node --test")
  )
    kinds.add("js");
  if (all.some((p) => /^(pytest|py\.test|tox|nox|nose2|pytest)$/.test(p)) || runners.some((r) => r.includes("pytest")))
    kinds.add("py");
  const out: string[] = [];
  for (const kind of kinds) {
    for (const name of RUNNER_CONFIGS[kind]!) {
      for (const d of new Set([cwd, root])) {
        const p = path.join(d, name);
        if (isInside(root, p) && isFile(p)) out.push(p);
      }
    }
  }
  return [...new Set(out)];
}
