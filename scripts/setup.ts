// `npm run setup [-- --prefix DIR]`: build kbz from this clone and put it on PATH, in one command
// (the README's quick start: `npm install && npm run setup`). The binary is copied (atomically:
// a temp file, then a rename) to <prefix>/bin/kbz, where <prefix> is --prefix, else npm's global
// prefix (`npm prefix -g`; `npm_config_prefix` moves it, as for `npm install -g`), else, when that
// folder is not writable, ~/.local. It needs nothing else at run time, so the clone may move.
// The last line says whether that folder is on the PATH of the shell npm was started from, and
// if not, the one line that puts it there.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { userPath } from "./start.ts";

const REPO = path.join(import.meta.dir, "..");

function writable(dir: string): boolean {
  try {
    fs.mkdirSync(dir, { recursive: true });
    fs.accessSync(dir, fs.constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** The folder kbz goes into: --prefix, npm's global bin, or ~/.local/bin. */
export function binDir(args: string[], env: Record<string, string | undefined>): string {
  const i = args.indexOf("--prefix");
  if (i >= 0) {
    const p = args[i + 1];
    if (!p) throw new Error("--prefix needs a folder");
    return path.join(path.resolve(p), "bin");
  }
  const npm = spawnSync("npm", ["prefix", "-g"], { encoding: "utf8", env: env as NodeJS.ProcessEnv });
  const prefix = npm.status === 0 ? npm.stdout.trim() : "";
  if (prefix !== "" && writable(path.join(prefix, "bin"))) return path.join(prefix, "bin");
  return path.join(env.HOME || os.homedir(), ".local", "bin");
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const built = spawnSync(process.execPath, ["build.ts"], { cwd: REPO, stdio: "inherit" });
  if (built.status !== 0) process.exit(built.status ?? 1);
  const dir = binDir(args, process.env);
  if (!writable(dir)) {
    console.error(`kbz setup: cannot write ${dir}; run again with --prefix <a folder you own>`);
    process.exit(2);
  }
  const target = path.join(dir, "kbz");
  const tmp = `${target}.${process.pid}.tmp`;
  try {
    fs.copyFileSync(path.join(REPO, "dist", "kbz"), tmp);
    fs.chmodSync(tmp, 0o755);
    fs.renameSync(tmp, target);
  } finally {
    fs.rmSync(tmp, { force: true });
  }
  const version = spawnSync(target, ["--version"], { encoding: "utf8" });
  if (version.status !== 0) {
    console.error(`kbz setup: ${target} --version failed: ${version.stderr}`);
    process.exit(2);
  }
  const onPath = (userPath(process.env) ?? "").split(path.delimiter).some((d) => d !== "" && path.resolve(d) === dir);
  console.log(`installed kbz ${version.stdout.trim()} as ${target}`);
  if (onPath) console.log("kbz is on your PATH: run `kbz` in any repository (README: your repository in five minutes)");
  else console.log(`${dir} is not on your PATH; add it, then run kbz: export PATH="${dir}:$PATH"`);
}
