// Finding a test's processes by a unique argument, from outside any namespace they run in.
import * as fs from "node:fs";

let n = 0;
/** A unique `sleep` duration (seconds): long enough to outlive any test, unique in `ps`. */
export function token(): string {
  return `${400 + (process.pid % 100)}.${Date.now() % 100000}${++n}`;
}

/** Pids of live (not zombie) processes whose command line contains `needle` (args joined by spaces). */
export function pidsWith(needle: string): number[] {
  const found: number[] = [];
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmd = fs.readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0").join(" ");
      if (!cmd.includes(needle)) continue;
      const stat = fs.readFileSync(`/proc/${name}/stat`, "utf8");
      if (stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z") found.push(Number(name));
    } catch {
      // exited while we looked
    }
  }
  return found;
}
