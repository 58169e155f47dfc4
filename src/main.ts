#!/usr/bin/env bun
// Entry: answer --version without loading anything else, hand the rest to the CLI.
import { VERSION_LINE } from "./version.ts";

async function main(args: string[]): Promise<void> {
  if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
    console.log(VERSION_LINE); // the native console path: no stdio stream is created
    return;
  }
  // The Stop hook skips yargs: it must answer fast and never exit non-zero on odd arguments (its
  // one non-zero exit is a refused Claude Code TaskCompleted, which that event reads as exit 2).
  if (args[0] === "hook" && args[1] === "stop") {
    if (args.includes("--help") || args.includes("-h")) {
      const { STOP_HELP } = await import("./hook/help.ts");
      process.stdout.write(STOP_HELP);
      return;
    }
    const { stopHookMain } = await import("./hook/entry.ts");
    await stopHookMain(args.slice(2));
  }
  const { runCli } = await import("./cli/index.ts");
  const { flushOut } = await import("./cli/output.ts");
  process.exitCode = await runCli(args);
  flushOut();
}

void main(process.argv.slice(2));
