// Printing for the CLI edge: every line of repository text passes the sanitizer here.
import type { FileProblem } from "../core/errors.ts";
import { sanitize, terminalJson } from "../core/text/sanitize.ts";

export function out(line = ""): void {
  process.stdout.write(sanitize(line) + "\n");
}

export function err(line: string): void {
  process.stderr.write(sanitize(line) + "\n");
}

export function json(value: unknown): void {
  process.stdout.write(terminalJson(value, 2) + "\n");
}

export function printProblems(problems: FileProblem[]): void {
  for (const p of problems) err(`${p.file}:${p.line}: ${p.message}`);
}

export function printWarnings(warnings: FileProblem[]): void {
  for (const w of warnings) err(`${w.file}:${w.line}: warning: ${w.message}`);
}
