// Test helpers: run the compiled binary, make temp workspaces, hash trees.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { createHash } from "node:crypto";

export const REPO = path.resolve(import.meta.dir, "../..");
/** The binary under test; KBZ_TEST_BIN runs the same tests against another build (an old one, to prove a test fails there). */
export const BIN = process.env.KBZ_TEST_BIN || path.join(REPO, "dist", "kbz");
export const FIXTURES = path.join(REPO, "test", "fixtures");

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  cwd?: string;
  env?: Record<string, string | undefined>;
  input?: string;
  timeoutMs?: number;
}

/** Run the compiled binary (CLI cases always go through what users run). */
export function kbz(args: string[], opts: RunOptions = {}): RunResult {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...process.env, ...opts.env })) if (v !== undefined) env[k] = v;
  delete env.UNLAZY_SCOPE;
  if (opts.env?.UNLAZY_SCOPE) env.UNLAZY_SCOPE = opts.env.UNLAZY_SCOPE;
  const r = spawnSync(BIN, args, {
    cwd: opts.cwd ?? process.cwd(),
    env,
    input: opts.input ?? "",
    encoding: "utf8",
    timeout: opts.timeoutMs ?? 30_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.error) throw r.error;
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

export { tempDir } from "./tmp.ts";
import { tempDir } from "./tmp.ts";

/** Write a tree of files: { "GATES.md": "...", ".unlazy/api/gates/leaf-1.md": "..." }. */
export function writeTree(root: string, files: Record<string, string | Uint8Array>): void {
  for (const [rel, content] of Object.entries(files)) {
    const p = path.join(root, rel);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, content);
  }
}

/** Copy a fixture directory into a fresh temp dir and return it. */
export function fixtureCopy(name: string): string {
  const dir = tempDir();
  fs.cpSync(path.join(FIXTURES, name), dir, { recursive: true });
  return dir;
}

/** A digest of every path, type, mode and content under `root` (links not followed). */
export function hashTree(root: string): string {
  const h = createHash("sha256");
  const walk = (dir: string) => {
    for (const name of fs.readdirSync(dir).sort()) {
      const p = path.join(dir, name);
      const st = fs.lstatSync(p);
      h.update(`${path.relative(root, p)}\0${st.mode}\0`);
      if (st.isSymbolicLink()) h.update(fs.readlinkSync(p));
      else if (st.isDirectory()) walk(p);
      else if (st.isFile()) h.update(fs.readFileSync(p));
    }
  };
  walk(root);
  return h.digest("hex");
}

/**
 * A `kbz status` gate line ("  STALE       GATES:G1 (oracle changed: a): title") with its label put
 * back before the reason ("GATES:G1 STALE (oracle changed: a): title"), as the Stop hook and JSON
 * say it: the line names its label once (issue 44 item 7), tests match the reason as the hook gives it.
 */
export function withLabel(line: string): string {
  return line.replace(/^\s*(\S+)\s+(\S+) \(/, "$2 $1 (");
}
