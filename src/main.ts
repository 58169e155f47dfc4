#!/usr/bin/env bun
// Entry: answer --version without loading anything else, hand the rest to the CLI.
import { VERSION } from "./version.ts";

async function main(args: string[]): Promise<void> {
  if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
    process.stdout.write(`${VERSION}\n`);
    return;
  }
  const { runCli } = await import("./cli/index.ts");
  process.exitCode = await runCli(args);
}

void main(process.argv.slice(2));
