// The Bun runtime each cross-target embeds. `bun build --compile --target=X` would download it
// itself: Bun 1.4.5 fetches https://registry.npmjs.org/@oven/bun-<os>-<arch>[-musl]/-/… (a fixed
// host: it ignores NPM_CONFIG_REGISTRY and BUN_CONFIG_REGISTRY) and keeps bin/bun in its install
// cache (~/.bun/install/cache/bun-<os>-<arch>-v<version>, or BUN_INSTALL_CACHE_DIR). We fetch the
// same package with npm instead (`npm pack`), so the download follows the user's npm config
// (registry mirror, proxy, CA), npm checks its sha512 against the registry, npm's cache serves it
// offline the next time, and the version is exactly the Bun that bundles (the same bytes Bun's own
// download gives: compared for @oven/bun-linux-aarch64@1.4.5). Extracted runtimes are kept under
// node_modules/.cache/kbz-dist/.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { npm } from "./npm.ts";
import type { Target } from "./targets.ts";

export const RUNTIME_CACHE = path.resolve(import.meta.dir, "..", "..", "node_modules", ".cache", "kbz-dist");

function run(cmd: string, args: string[], cwd: string): string {
  const r = spawnSync(cmd, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  if (r.error) throw new Error(`${cmd} ${args.join(" ")}: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed (exit ${r.status}):\n${r.stderr.trim()}`);
  return r.stdout;
}

/** The path of Bun `version`'s runtime for `target`, fetched through npm on first use. */
export function runtimeFor(target: Target, version: string): string {
  const dir = path.join(RUNTIME_CACHE, `${target.runtime.replace("@oven/", "")}-${version}`);
  const exe = path.join(dir, "package", "bin", target.os === "win32" ? "bun.exe" : "bun");
  if (fs.existsSync(exe)) return exe;
  // Unpacked beside the final folder, then renamed: a concurrent or killed run never leaves half a runtime.
  const work = `${dir}.tmp-${process.pid}`;
  fs.rmSync(work, { recursive: true, force: true });
  fs.mkdirSync(work, { recursive: true });
  try {
    const packed = JSON.parse(
      npm(["pack", `${target.runtime}@${version}`, "--json", "--ignore-scripts", "--pack-destination", work], work),
    ) as { filename: string }[];
    const tarball = path.join(work, packed[0]!.filename);
    run("tar", ["-xzf", tarball, "-C", work], work);
    fs.rmSync(tarball);
    if (!fs.existsSync(path.join(work, path.relative(dir, exe))))
      throw new Error(`${target.runtime}@${version} holds no ${path.relative(dir, exe)}`);
    try {
      fs.renameSync(work, dir);
    } catch (e) {
      if (!fs.existsSync(exe)) throw e; // another run finished first
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  return exe;
}
