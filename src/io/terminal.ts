// Single keys from the person's terminal (issue 44 item 6 for `kbz approve`, like the dashboard):
// the terminal on stdin is put in non-canonical mode without echo by the system's stty (found by
// absolute path, io/run/system.ts), so y/n/a/q answer without Enter; a line (the evidence of a
// manual gate) is read in the terminal's own mode. The mode is restored on every way out.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import { systemTool } from "./run/system.ts";

export interface Keys {
  /** One key (lower-cased); "q" at end of input. Enter and other whitespace are skipped. */
  key(): string;
  /** One line as typed (echoed), trimmed; null at end of input. */
  line(): string | null;
  /** Put the terminal back as it was. */
  restore(): void;
}

function stty(args: string[]): string | null {
  const tool = systemTool("stty");
  if (!tool) return null;
  const r = spawnSync(tool, args, { stdio: ["inherit", "pipe", "ignore"], encoding: "utf8" });
  return r.status === 0 ? r.stdout.trim() : null;
}

function readByte(): string | null {
  const buf = Buffer.alloc(1);
  for (;;) {
    try {
      const n = fs.readSync(0, buf, 0, 1, null);
      return n === 0 ? null : buf.toString("latin1");
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "EAGAIN") continue;
      return null;
    }
  }
}

/** Keys from stdin; single keys where stdin is a terminal stty can set, else one line per answer. */
export function terminalKeys(): Keys {
  const saved = stty(["-g"]);
  const single = saved !== null && stty(["-icanon", "-echo", "min", "1", "time", "0"]) !== null;
  let restored = !single;
  const restore = () => {
    if (restored) return;
    restored = true;
    stty([saved!]);
  };
  if (single) {
    process.once("exit", restore);
    process.once("SIGINT", () => {
      restore();
      process.exit(130);
    });
  }
  const line = (): string | null => {
    if (single) stty([saved!]);
    let text = "";
    let got = false;
    for (;;) {
      const c = readByte();
      if (c === null) break;
      got = true;
      if (c === "\n" || c === "\r") break;
      text += c;
    }
    if (single) stty(["-icanon", "-echo", "min", "1", "time", "0"]);
    return got ? text.trim() : null;
  };
  const key = (): string => {
    if (!single) {
      const l = line();
      return l === null || l === "" ? (l === null ? "q" : "") : l.slice(0, 1).toLowerCase();
    }
    for (;;) {
      const c = readByte();
      // End of input: in non-canonical mode the terminal's EOF key (^D, which script(1) also sends
      // when its own input ends) arrives as a byte, not as a read of 0: without this, kbz approve
      // waited for ever for a key after its input ended.
      if (c === null || c === "\x04") return "q";
      if (/\s/.test(c)) continue;
      return c.toLowerCase();
    }
  };
  return { key, line, restore };
}
