// What the probe must never hide (issue 27, "the probe never hides the oracle"): the files the
// CHECK runs. Hiding the checker makes the CHECK fail and the gate read OBSERVES although it
// prints a constant. Until the approval's oracle file set (issue 27, src/io/oracle/) is there,
// the oracle is what each command of the CHECK runs: a command named by a path (`./check.sh`,
// `bin/test`), the script an interpreter is given (`node X`, `sh X`, `python3 X`, `bun run X`,
// `source X`, ...), and package.json for a package manager's script. Files a command only reads
// (`grep -q x README.md`) are deliverables, and stay hidden.
import * as fs from "node:fs";
import * as path from "node:path";

const INTERPRETERS = new Set(["sh", "bash", "dash", "zsh", "ksh", "fish", "node", "nodejs", "bun", "deno", "tsx", "ts-node", "python", "python3", "ruby", "perl", "php", "lua", "Rscript", "source", ".", "exec", "env", "timeout", "nice", "xargs"]);
const SUBCOMMANDS = new Set(["run", "test", "exec", "x"]);
const PACKAGE_MANAGERS = new Set(["npm", "pnpm", "yarn", "npx", "bun"]);

const unquote = (w: string) => w.replace(/^['"]+|['"]+$/g, "");

/** The commands of a CHECK: words per simple command, split at ; | & ( ) and newlines. */
function commands(check: string): string[][] {
  return check
    .split(/[;|&()\n`]+/)
    .map((c) => c.trim().split(/\s+/).map(unquote).filter(Boolean))
    .filter((ws) => ws.length > 0);
}

/** Real paths of the files the CHECK runs as its oracle. */
export function oracleFiles(check: string, cwd: string): Set<string> {
  const out = new Set<string>();
  const add = (p: string) => {
    try {
      if (fs.statSync(p).isFile()) out.add(fs.realpathSync(p));
    } catch {}
  };
  for (let ws of commands(check)) {
    while (ws.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(ws[0]!)) ws = ws.slice(1);
    if (ws.length === 0) continue;
    const cmd = ws[0]!;
    if (cmd.includes("/")) add(path.resolve(cwd, cmd));
    const name = path.basename(cmd);
    if (PACKAGE_MANAGERS.has(name)) add(path.join(cwd, "package.json"));
    if (!INTERPRETERS.has(name) && !PACKAGE_MANAGERS.has(name)) continue;
    // The first word after the interpreter's flags (and a `run`/`test` subcommand) is its script;
    // wrappers (env, timeout, nice, exec) hand on to a command that may itself be a path.
    for (const w of ws.slice(1)) {
      if (w.startsWith("-") || /^[A-Za-z_][A-Za-z0-9_]*=/.test(w) || SUBCOMMANDS.has(w) || /^\d+(\.\d+)?[smhd]?$/.test(w)) continue;
      add(path.resolve(cwd, w));
      if (!INTERPRETERS.has(path.basename(w))) break;
    }
  }
  return out;
}
