// Who runs kbz, by its ancestors (docs/formats.md#agent-hosts): walk /proc from the parent up to
// PID 1 and match each process's executable and command line against the host table
// (core/person.ts AGENT_HOSTS). A host that sets no marker in its shells, or a shell that dropped
// its host's variables, still has the host above it. Where /proc is not there (macOS, Windows)
// this finds nothing and the marker and terminal rules stand alone.
import * as fs from "node:fs";
import { hostOfProcess } from "../../core/person.ts";

const MAX_DEPTH = 64;

function parentOf(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "latin1");
    // The command name may hold spaces and parentheses: the fields start after the last ')'.
    const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ppid = Number(rest[1]);
    return Number.isInteger(ppid) ? ppid : null;
  } catch {
    return null;
  }
}

function describeProcess(pid: number): { exe: string; argv: string[] } {
  let exe = "";
  try {
    exe = fs.readlinkSync(`/proc/${pid}/exe`);
  } catch {}
  let argv: string[] = [];
  try {
    argv = fs
      .readFileSync(`/proc/${pid}/cmdline`, "utf8")
      .split("\0")
      .filter((a) => a !== "");
  } catch {}
  return { exe: exe.replace(/ \(deleted\)$/, ""), argv };
}

/** The agent host among kbz's ancestors, or null (also where /proc cannot be read). */
export function ancestorHost(): string | null {
  let pid: number | null = process.ppid;
  for (let depth = 0; pid !== null && pid > 1 && depth < MAX_DEPTH; depth++) {
    const { exe, argv } = describeProcess(pid);
    const host = hostOfProcess(exe, argv);
    if (host) return host;
    pid = parentOf(pid);
  }
  return null;
}
