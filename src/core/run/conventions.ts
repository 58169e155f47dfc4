// The oracle and the work by convention (issue 39; docs/formats.md#oracle). Pure: root-relative
// paths in, a decision out. What a gate declares decides first (WORK: or a leaf's OWNS: for the
// work, ORACLE: for the oracle); for the rest, the runners' own conventions say what is a test, a
// fixture or a config (the oracle); what a test imports beyond them is the application (the work).

/** Folder names test runners treat as tests, fixtures or mocks. */
const TEST_DIRS = new Set([
  "test",
  "tests",
  "__tests__",
  "spec",
  "specs",
  "fixtures",
  "__fixtures__",
  "__mocks__",
  "testdata",
  "test-data",
  "test_data",
  "e2e",
  "conftest",
  "checks",
  "checkers",
]);
/** File names of runner and tool configs. */
const CONFIG =
  /^(\.npmrc|\.yarnrc(\.yml)?|\.pnpmfile\.c?js|bunfig\.toml|deno\.jsonc?|tsconfig(\.[\w-]+)?\.json|jsconfig\.json|(vitest|vite|jest|playwright|cypress|ava|karma|wdio|babel)\.(config|workspace|setup)\.[cm]?[jt]sx?|jest\.setup(\.[\w-]+)?\.[cm]?[jt]sx?|\.mocharc(\.[\w]+)?|\.babelrc(\.\w+)?|\.nycrc(\.\w+)?|\.c8rc(\.\w+)?|pytest\.ini|pyproject\.toml|setup\.cfg|tox\.ini|conftest\.py|noxfile\.py|\.coveragerc|Makefile|makefile|GNUmakefile|\.env(\.test)?)$/;
/** File names of tests. */
const TEST_FILE = /(^|[._-])(test|spec)s?\.[\w]+$|^test_.*\.py$|_test\.\w+$|^test\.\w+$/;

/** Root-relative path's segments (forward slashes). */
function segments(rel: string): string[] {
  return rel.split("/").filter((s) => s !== "" && s !== ".");
}

/** A runner or tool config (`.npmrc`, `vitest.config.ts`, `conftest.py`, …). */
export function isConfigFile(rel: string): boolean {
  const segs = segments(rel);
  return CONFIG.test(segs[segs.length - 1] ?? "");
}

/** A test, fixture or config by the runners' conventions, or the tools under node_modules/: the oracle. */
export function isOracleByConvention(rel: string): boolean {
  const segs = segments(rel);
  const base = segs[segs.length - 1] ?? "";
  if (segs.slice(0, -1).some((s) => TEST_DIRS.has(s) || s === "node_modules")) return true;
  return TEST_FILE.test(base) || CONFIG.test(base);
}

/** Files kbz's own records and git's internals: never part of an oracle, whoever reads them. */
export function isBookkeeping(rel: string): boolean {
  const first = segments(rel)[0] ?? "";
  return (
    first === ".git" ||
    first === ".kbz" ||
    first === ".unlazy" ||
    /(^|\/)__pycache__\//.test(rel) ||
    rel.endsWith(".pyc")
  );
}

/** A glob (`*`, `**`, `?`) as a regular expression over root-relative paths. */
export function globRegex(glob: string): RegExp {
  let re = "";
  const g = glob.replace(/^\.\//, "").replace(/\/+$/, "/**");
  for (let i = 0; i < g.length; i++) {
    const c = g[i]!;
    if (c === "*" && g[i + 1] === "*") {
      const slash = g[i + 2] === "/";
      re += slash ? "(?:.*/)?" : ".*";
      i += slash ? 2 : 1;
    } else if (c === "*") re += "[^/]*";
    else if (c === "?") re += "[^/]";
    else re += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  // A path without wildcards names a file or a whole folder.
  return new RegExp(/[*?]/.test(glob) ? `^${re}$` : `^${re}(?:/.*)?$`);
}

/** Whether a root-relative path is matched by one of the globs (each already root-relative). */
export function matchesAny(rel: string, globs: readonly RegExp[]): boolean {
  return globs.some((g) => g.test(rel));
}
