// The stable path every installed hook names: `~/.kbz/bin/kbz-hook` (or `kbz-hook-node` for the
// Node 16 fallback), a two-line sh script that runs the kbz this install came from. The hosts'
// hook files hold the shim's path, never the binary's, so a kbz upgrade or a moved binary changes
// the shim alone: the command string, and with it Codex's trust hash, stays the same. A re-install
// rewrites the shim; `kbz doctor` reports a shim whose program is gone.
import * as fs from "node:fs";
import * as path from "node:path";
import { ensureRealDir, writeAtomic } from "../fs.ts";
import { shellQuote, shellWords } from "../../core/text/shell.ts";
import { kbz } from "../../core/text/command.ts";

const HEADER = `#!/bin/sh\n# kbz's stop guard for agent hosts, written by \`${kbz("hook install")}\`: the hosts' hook files name this file, so\n# their command stays the same when kbz moves or is upgraded. Re-run \`${kbz("hook install")}\` to point it at another kbz.\n`;

/** KBZ_HOME or ~/.kbz: kbz's per-user directory. */
export function kbzHome(home: string, env: Record<string, string | undefined>): string {
  return env.KBZ_HOME ? path.resolve(env.KBZ_HOME) : path.join(home, ".kbz");
}

export function shimPath(home: string, env: Record<string, string | undefined>, fallback: boolean): string {
  return path.join(kbzHome(home, env), "bin", fallback ? "kbz-hook-node" : "kbz-hook");
}

export function shimText(words: string[]): string {
  return `${HEADER}exec ${words.map(shellQuote).join(" ")} "$@"\n`;
}

/** Write the shim when its text differs; returns whether it changed. */
export function writeShim(file: string, words: string[]): boolean {
  const text = shimText(words);
  try {
    if (fs.readFileSync(file, "utf8") === text) return false;
  } catch {}
  ensureRealDir(path.dirname(file), undefined, 0o755);
  writeAtomic(file, text, { mode: 0o755 });
  fs.chmodSync(file, 0o755);
  return true;
}

/** The program words a shim runs, or null when the file is not a kbz shim. */
export function shimTarget(file: string): string[] | null {
  let text: string;
  try {
    if (fs.statSync(file).size > 64 * 1024) return null;
    text = fs.readFileSync(file, "utf8");
  } catch {
    return null;
  }
  if (!text.startsWith("#!/bin/sh\n# kbz's stop guard")) return null;
  const line = text.split("\n").find((l) => l.startsWith("exec "));
  if (!line) return null;
  const words = shellWords(line.slice("exec ".length));
  return words[words.length - 1] === "$@" ? words.slice(0, -1) : words;
}
