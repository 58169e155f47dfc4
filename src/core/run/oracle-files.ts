// What a CHECK runs as its oracle (issue 27: the approval binds the oracle). Pure: a shell
// command in, the files it names as programs or scripts, the package-manager scripts it runs and
// the test runners it calls out. io/oracle/ reads the digests; docs/formats.md#oracle lists the
// rules. This is a reading of the common shapes, not a shell: what it cannot see, a gate names in
// `ORACLE:` (and lint asks for that when a test runner is involved).

export type OracleRef =
  /** A file the command runs or reads as code, as written (relative to `dir`, or absolute). */
  | { kind: "file"; path: string; dir: string; via: string }
  /** A package.json script run by a package manager (`npm test`, `pnpm lint`, `bun run x`). */
  | { kind: "script"; manager: "npm" | "pnpm" | "yarn" | "bun"; name: string; dir: string }
  /** deno.json tasks. */
  | { kind: "config"; path: string; dir: string; via: string };

export interface CommandOracle {
  refs: OracleRef[];
  /** Test runners the command calls (vitest, jest, pytest, go test, npm test, …), for lint. */
  runners: string[];
  /** Programs the command runs by name (found on PATH), e.g. `node`, `npm`, `python3` (issue 39: bound by what PATH resolves them to). */
  programs: string[];
}

/** Shell keywords after which a command starts. */
const KEYWORD_PREFIXES = new Set(["do", "then", "else", "elif", "if", "while", "until"]);

/** Shell builtins and keywords: never looked up on PATH. */
const BUILTINS = new Set([
  "cd",
  "echo",
  "printf",
  "test",
  "[",
  "[[",
  "true",
  "false",
  ":",
  "exit",
  "return",
  "set",
  "unset",
  "export",
  "read",
  "local",
  "eval",
  "exec",
  "shift",
  "wait",
  "trap",
  "umask",
  "ulimit",
  "alias",
  "type",
  "hash",
  "break",
  "continue",
  "if",
  "then",
  "else",
  "elif",
  "fi",
  "for",
  "while",
  "until",
  "do",
  "done",
  "case",
  "esac",
  "in",
  "function",
  "source",
  ".",
  "declare",
  "typeset",
  "readonly",
  "let",
  "getopts",
  "pwd",
  "kill",
  "jobs",
  "fg",
  "bg",
  "!",
  "time",
  "command",
  "builtin",
]);

type Token = { word: string } | { op: string };

const OPERATORS = ["&&", "||", ";;", "|&", ";", "&", "|", "(", ")", "\n", "{", "}"];
/** The first characters of OPERATORS: every other character skips the search (status tokenizes each met gate's CHECK). */
const OPERATOR_START = new Set(OPERATORS.map((o) => o[0]!));

/** Words and control operators, with quotes and backslashes removed the way sh reads them. */
export function tokenize(command: string): Token[] {
  const out: Token[] = [];
  let word = "";
  let inWord = false;
  const flush = () => {
    if (inWord) out.push({ word });
    word = "";
    inWord = false;
  };
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    if (c === "'") {
      const end = command.indexOf("'", i + 1);
      word += command.slice(i + 1, end < 0 ? command.length : end);
      inWord = true;
      i = end < 0 ? command.length : end;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < command.length && command[j] !== '"'; j++) {
        if (command[j] === "\\" && j + 1 < command.length && '"\\$`'.includes(command[j + 1]!)) j++;
        word += command[j];
      }
      inWord = true;
      i = j;
    } else if (c === "\\") {
      if (command[i + 1] === "\n") i++;
      else {
        word += command[i + 1] ?? "";
        inWord = true;
        i++;
      }
    } else if (c === " " || c === "\t" || c === "\r") flush();
    else if (c === "#" && !inWord) {
      while (i < command.length && command[i] !== "\n") i++;
      i--;
    } else if (c === "$" && command[i + 1] === "(") {
      flush();
      out.push({ op: "(" });
      i++;
    } else if (c === "`") {
      flush();
      out.push({ op: "`" });
    } else {
      const op = OPERATOR_START.has(c) ? OPERATORS.find((o) => command.startsWith(o, i)) : undefined;
      if (op && !(op === "{" || op === "}")) {
        flush();
        out.push({ op });
        i += op.length - 1;
      } else if ((op === "{" || op === "}") && !inWord && /[\s;]/.test(command[i + 1] ?? " ")) {
        flush();
        out.push({ op });
      } else {
        word += c;
        inWord = true;
      }
    }
  }
  flush();
  return out;
}

const INTERPRETERS = new Set([
  "node",
  "nodejs",
  "ruby",
  "perl",
  "php",
  "tsx",
  "ts-node",
  "ts-node-esm",
  "esno",
  "vite-node",
  "babel-node",
  "jiti",
  "Rscript",
  "lua",
  "luajit",
  "julia",
  "elixir",
  "groovy",
  "osascript",
  "awk",
  "gawk",
]);
const SHELLS = new Set(["sh", "bash", "dash", "zsh", "ksh", "mksh", "fish", "ash", "busybox"]);
const WRAPPERS = new Set([
  "time",
  "exec",
  "command",
  "nohup",
  "builtin",
  "stdbuf",
  "unbuffer",
  "!",
  "sudo",
  "doas",
  "xvfb-run",
  "dotenv",
  "cross-env",
]);
/** Node options whose value is code the interpreter loads. */
const NODE_LOADERS = new Set([
  "-r",
  "--require",
  "--import",
  "--loader",
  "--experimental-loader",
  "--env-file",
  "--preload",
]);
/** Options (of the interpreters above) that take the next word as their value. */
const VALUE_OPTIONS = new Set([
  "-W",
  "-X",
  "-I",
  "-o",
  "-O",
  "--stack-size",
  "--max-old-space-size",
  "--conditions",
  "-C",
  "--title",
  "--input-type",
  "--cwd",
  "--config",
  "-c",
]);
const PM_BUILTINS: Record<string, Set<string>> = {
  npm: new Set([
    "install",
    "i",
    "ci",
    "add",
    "uninstall",
    "remove",
    "rm",
    "update",
    "up",
    "outdated",
    "ls",
    "list",
    "audit",
    "init",
    "create",
    "pack",
    "publish",
    "version",
    "view",
    "info",
    "config",
    "cache",
    "link",
    "prune",
    "rebuild",
    "dedupe",
    "doctor",
    "explain",
    "why",
    "fund",
    "login",
    "logout",
    "whoami",
    "help",
    "root",
    "bin",
    "prefix",
    "pkg",
    "query",
    "sbom",
    "set-script",
  ]),
  pnpm: new Set([
    "install",
    "i",
    "add",
    "remove",
    "rm",
    "update",
    "up",
    "outdated",
    "list",
    "ls",
    "why",
    "audit",
    "init",
    "create",
    "pack",
    "publish",
    "store",
    "config",
    "link",
    "unlink",
    "import",
    "rebuild",
    "prune",
    "fetch",
    "patch",
    "patch-commit",
    "env",
    "setup",
    "root",
    "bin",
    "licenses",
    "deploy",
    "server",
    "help",
  ]),
  yarn: new Set([
    "install",
    "add",
    "remove",
    "up",
    "upgrade",
    "why",
    "info",
    "init",
    "config",
    "cache",
    "workspaces",
    "set",
    "plugin",
    "version",
    "npm",
    "pack",
    "publish",
    "constraints",
    "explain",
    "link",
    "unlink",
    "import",
    "rebuild",
    "patch",
    "patch-commit",
    "dedupe",
    "help",
    "bin",
    "node",
  ]),
  bun: new Set([
    "install",
    "i",
    "add",
    "a",
    "remove",
    "rm",
    "update",
    "outdated",
    "link",
    "unlink",
    "pm",
    "init",
    "create",
    "upgrade",
    "build",
    "publish",
    "patch",
    "patch-commit",
    "repl",
    "completions",
    "audit",
    "info",
    "why",
  ]),
};
/** Programs that are test runners by name (lint wants an ORACLE: for their test files). */
const RUNNERS = new Set([
  "vitest",
  "jest",
  "mocha",
  "ava",
  "tap",
  "tape",
  "uvu",
  "jasmine",
  "karma",
  "pytest",
  "py.test",
  "tox",
  "nox",
  "rspec",
  "phpunit",
  "pest",
  "ctest",
  "nextest",
  "playwright",
  "cypress",
  "wdio",
  "testcafe",
  "node-tap",
  "bats",
  "prove",
  "busted",
  "mix",
  "ward",
  "trial",
  "nosetests",
  "nose2",
]);
/** `<tool> test` (or the named subcommand) is a test runner. */
const TEST_SUBCOMMANDS: Record<string, string[]> = {
  go: ["test"],
  cargo: ["test", "nextest"],
  bun: ["test"],
  deno: ["test"],
  dotnet: ["test"],
  mvn: ["test", "verify"],
  gradle: ["test", "check"],
  "./gradlew": ["test", "check"],
  swift: ["test"],
  zig: ["test"],
  make: ["test", "check"],
  flutter: ["test"],
  dart: ["test"],
  mix: ["test"],
  stack: ["test"],
  cabal: ["test"],
  sbt: ["test"],
  lein: ["test"],
  rake: ["test", "spec"],
  meson: ["test"],
  ninja: ["test"],
};
/** Package runners: their first operand is the command they run. */
const PACKAGE_RUNNERS = new Set(["npx", "pnpx", "bunx", "c8", "nyc"]);

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;
const PYTHON = /^python(\d+(\.\d+)?)?$/;
const MAX_DEPTH = 4;

const looksLikeFile = (w: string) =>
  w.includes("/") || /\.(m?[jt]sx?|c[jt]s|py|sh|bash|rb|pl|php|lua|r|R|ts|mts|cts)$/.test(w);

/** The files, scripts and runners a command runs, with relative paths resolved against `dir`. */
export function oracleRefs(command: string, dir = "."): CommandOracle {
  const result: CommandOracle = { refs: [], runners: [], programs: [] };
  walk(command, dir, result, 0);
  const seen = new Set<string>();
  result.refs = result.refs.filter((r) => {
    const key = JSON.stringify(r);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  result.runners = [...new Set(result.runners)];
  result.programs = [...new Set(result.programs)];
  return result;
}

function walk(command: string, dir: string, out: CommandOracle, depth: number): void {
  if (depth > MAX_DEPTH) return;
  let words: string[] = [];
  let cwd = dir;
  const end = () => {
    if (words.length > 0) cwd = simpleCommand(words, cwd, out, depth);
    words = [];
  };
  for (const t of tokenize(command)) {
    if ("op" in t) end();
    else words.push(t.word);
  }
  end();
}

const join = (dir: string, p: string) =>
  p.startsWith("/") || p.startsWith("~")
    ? p
    : dir === "."
      ? p.replace(/^\.\//, "")
      : `${dir}/${p.replace(/^\.\//, "")}`;

/** One simple command; returns the directory later commands run in (after `cd`). */
function simpleCommand(all: string[], dir: string, out: CommandOracle, depth: number): string {
  // Redirections: `< file` is read by the command (bound), output targets are not.
  const words: string[] = [];
  for (let i = 0; i < all.length; i++) {
    const w = all[i]!;
    const m = /^(\d*)(<|>|>>|&>|>&|<<<|<<)(.*)$/.exec(w);
    if (m) {
      const target = m[3] || all[++i] || "";
      if (m[2] === "<" && target && !target.startsWith("&"))
        out.refs.push({ kind: "file", path: join(dir, target), dir, via: "<" });
      continue;
    }
    words.push(w);
  }
  let i = 0;
  while (i < words.length && ASSIGNMENT.test(words[i]!)) i++;
  return program(words.slice(i), dir, out, depth);
}

function program(words: string[], dir: string, out: CommandOracle, depth: number): string {
  const [cmd, ...args] = words;
  if (!cmd) return dir;
  const base = cmd.includes("/") && !cmd.startsWith("./gradlew") ? cmd.slice(cmd.lastIndexOf("/") + 1) : cmd;
  const file = (p: string, via: string) => out.refs.push({ kind: "file", path: join(dir, p), dir, via });
  const rest = (from: string[]) => program(from, dir, out, depth);
  if (
    !cmd.includes("/") &&
    !cmd.includes("$") &&
    !cmd.includes("=") &&
    !BUILTINS.has(cmd) &&
    /^[A-Za-z0-9_.+-]+$/.test(cmd)
  )
    out.programs.push(cmd);

  if (cmd === "cd") {
    const to = args[0];
    return to && !to.startsWith("-") && !to.startsWith("$") ? join(dir, to) : dir;
  }
  // `do node x.js`, `then sh y.sh`: the keyword starts the command that follows it.
  if (KEYWORD_PREFIXES.has(cmd)) return rest(args);
  if (WRAPPERS.has(cmd)) return rest(args.filter((a, k) => !(k === 0 && a.startsWith("-"))));
  if (cmd === "env") {
    let k = 0;
    while (k < args.length && (args[k]!.startsWith("-") || ASSIGNMENT.test(args[k]!))) k += args[k] === "-u" ? 2 : 1;
    return rest(args.slice(k));
  }
  if (cmd === "nice" || cmd === "timeout" || cmd === "ionice" || cmd === "taskset" || cmd === "chrt") {
    let k = 0;
    while (k < args.length && args[k]!.startsWith("-")) k += /^-[nkscp]$/.test(args[k]!) ? 2 : 1;
    if (cmd !== "nice" && cmd !== "ionice" && k < args.length) k++; // the duration, mask or priority
    return rest(args.slice(k));
  }
  if (cmd === "source" || cmd === ".") {
    if (args[0]) file(args[0], cmd);
    return dir;
  }
  if (cmd.includes("/") && !cmd.startsWith("$")) file(cmd, "exec");
  if (RUNNERS.has(base)) out.runners.push(base);
  const sub = TEST_SUBCOMMANDS[base] ?? TEST_SUBCOMMANDS[cmd];
  if (sub && args.find((a) => !a.startsWith("-")) && sub.includes(args.find((a) => !a.startsWith("-"))!))
    out.runners.push(`${base} ${args.find((a) => !a.startsWith("-"))}`);

  if (SHELLS.has(base)) {
    const c = args.findIndex((a) => /^-[a-zA-Z]*c[a-zA-Z]*$/.test(a));
    if (c >= 0) {
      if (args[c + 1]) walk(args[c + 1]!, dir, out, depth + 1);
      return dir;
    }
    const script = operand(args, new Set(["-o", "+o", "-O", "+O"]));
    if (script) file(script, base);
    return dir;
  }
  if (PYTHON.test(base) || base === "pypy" || base === "pypy3") {
    const m = args.indexOf("-m");
    const c = args.indexOf("-c");
    if (m >= 0 && (c < 0 || m < c)) {
      const mod = args[m + 1] ?? "";
      if (mod === "pytest" || mod === "unittest" || mod === "nose2" || mod === "tox")
        out.runners.push(`python -m ${mod}`);
      return dir;
    }
    if (c >= 0) return dir;
    const script = operand(args, VALUE_OPTIONS);
    if (script) file(script, base);
    return dir;
  }
  if (INTERPRETERS.has(base)) {
    let k = 0;
    for (; k < args.length; k++) {
      const a = args[k]!;
      if (a === "-e" || a === "--eval" || a === "-p" || a === "--print" || a === "-E") return dir;
      if (a === "--test") out.runners.push("node --test");
      const eq = a.indexOf("=");
      const name = a.startsWith("--") && eq > 0 ? a.slice(0, eq) : a;
      if (NODE_LOADERS.has(name)) {
        const value = eq > 0 && a.startsWith("--") ? a.slice(eq + 1) : args[++k];
        if (value && looksLikeFile(value)) file(value, `${base} ${name}`);
        continue;
      }
      if (VALUE_OPTIONS.has(a)) {
        k++;
        continue;
      }
      if (a === "--") {
        k++;
        break;
      }
      if (!a.startsWith("-")) break;
    }
    if (args[k] && !args.includes("--test")) file(args[k]!, base);
    return dir;
  }
  if (base === "deno") {
    const [verb, ...more] = args;
    if (verb === "task") out.refs.push({ kind: "config", path: join(dir, "deno.json"), dir, via: "deno task" });
    if (verb === "run" || verb === "test" || verb === "bench") {
      const script = operand(
        more,
        new Set(["--config", "-c", "--import-map", "--lock", "--cert", "--location", "--v8-flags"]),
      );
      if (script) file(script, `deno ${verb}`);
    }
    return dir;
  }
  if (PACKAGE_RUNNERS.has(base)) {
    let k = 0;
    while (k < args.length && args[k]!.startsWith("-")) k += args[k] === "-p" || args[k] === "--package" ? 2 : 1;
    return rest(args.slice(k));
  }
  if (base === "npm" || base === "pnpm" || base === "yarn" || base === "bun")
    return packageManager(base, args, dir, out, depth, file);
  return dir;
}

/** The first operand after options (skipping the values of `valued` options). */
function operand(args: string[], valued: Set<string>): string | null {
  for (let k = 0; k < args.length; k++) {
    const a = args[k]!;
    if (a === "--") return args[k + 1] ?? null;
    if (valued.has(a)) k++;
    else if (!a.startsWith("-") && !a.startsWith("+")) return a;
  }
  return null;
}

function packageManager(
  pm: "npm" | "pnpm" | "yarn" | "bun",
  args: string[],
  dir: string,
  out: CommandOracle,
  depth: number,
  file: (p: string, via: string) => void,
): string {
  const positional: string[] = [];
  for (let k = 0; k < args.length; k++) {
    const a = args[k]!;
    if (a === "--") {
      positional.push(...args.slice(k + 1));
      break;
    }
    if (/^(-w|--workspace|--filter|-F|--prefix|-C|--cwd|--dir)$/.test(a)) k++;
    else if (!a.startsWith("-")) positional.push(a);
  }
  const [verb, name, ...more] = positional;
  if (!verb) return dir;
  const script = (n: string) => out.refs.push({ kind: "script", manager: pm, name: n, dir });
  if (["test", "t", "tst"].includes(verb) && pm !== "bun") {
    script("test");
    out.runners.push(`${pm} test`);
    return dir;
  }
  if ((pm === "npm" || pm === "pnpm") && ["start", "stop", "restart"].includes(verb)) {
    script(verb);
    return dir;
  }
  if (["run", "run-script", "rum", "urn"].includes(verb)) {
    if (!name) return dir;
    if (pm === "bun" && looksLikeFile(name)) file(name, "bun run");
    else {
      script(name);
      if (name === "test" || /^test[:-]/.test(name)) out.runners.push(`${pm} run ${name}`);
    }
    return dir;
  }
  if (["exec", "dlx", "x"].includes(verb)) return program([name ?? "", ...more].filter(Boolean), dir, out, depth);
  if (pm === "npm") return dir;
  if (pm === "bun") {
    if (verb === "test") return dir; // counted as a runner above
    if (looksLikeFile(verb)) {
      file(verb, "bun");
      return dir;
    }
  }
  if (PM_BUILTINS[pm]!.has(verb)) return dir;
  script(verb);
  return dir;
}
