// Tests that need a real part the machine may lack (bubblewrap, etcd, tmux, strace, script, the
// agent host CLIs) ask here first. Present: they run. Missing: they skip, and the run prints one
// line per missing part (once, however many files ask) naming the package and the command that
// installs it. With KBZ_CI=1 (what .ci/run sets) a missing part is a failure instead: CI must run
// every test.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { bwrapUsable } from "../../src/io/run/sandbox.ts";
import { ETCD } from "./etcd-cluster.ts";

export type Part = "bwrap" | "etcd" | "tmux" | "strace" | "script" | "hosts";

interface PartInfo {
  /** What the skipped tests exercise, for the skip line. */
  tests: string;
  /** How to install it. */
  install: string;
  /** "" when usable, else why not. */
  probe(): string;
}

const REPO = path.resolve(import.meta.dir, "../..");
const HOST_MODULES = path.join(REPO, "test", "hosts", "node_modules");

function onPath(cmd: string, args: string[]): string {
  const r = spawnSync(cmd, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  if (r.error) return `${cmd} not found (${(r.error as NodeJS.ErrnoException).code ?? r.error.message})`;
  return r.status === 0 ? "" : `${cmd} ${args.join(" ")} exited ${r.status}`;
}

/** "" when every host CLI test/hosts/package.json pins (and its optional package for this platform) is installed. */
function hostsMissing(): string {
  if (!fs.existsSync(path.join(HOST_MODULES, ".package-lock.json")))
    return "the host CLIs are not installed under test/hosts/node_modules";
  const pkg = JSON.parse(fs.readFileSync(path.join(REPO, "test", "hosts", "package.json"), "utf8"));
  const platform = `-${process.platform}-${process.arch}`;
  const wanted = [
    ...Object.keys(pkg.dependencies ?? {}),
    ...Object.keys(pkg.optionalDependencies ?? {}).filter((n) => n.endsWith(platform)),
  ];
  const absent = wanted.filter((n) => !fs.existsSync(path.join(HOST_MODULES, n, "package.json")));
  return absent.length === 0 ? "" : `test/hosts/node_modules lacks ${absent.join(", ")}`;
}

export const PARTS: Record<Part, PartInfo> = {
  bwrap: {
    tests: "the sandbox and probe tests",
    install: "apt-get install bubblewrap",
    probe: () => {
      const found = (process.env.PATH ?? "")
        .split(path.delimiter)
        .some((d) => d !== "" && fs.existsSync(path.join(d, "bwrap")));
      if (!found) return "bwrap not found on PATH";
      const u = bwrapUsable();
      return u.ok ? "" : u.why;
    },
  },
  etcd: {
    tests: "the etcd coordinator tests",
    install: "apt-get install etcd-server",
    probe: () => (Bun.which("etcd") ? onPath(ETCD, ["--version"]) : "etcd not found on PATH"),
  },
  tmux: {
    tests: "the real-terminal dashboard tests",
    install: "apt-get install tmux",
    probe: () => onPath("tmux", ["-V"]),
  },
  strace: {
    tests: "the read-once tests (strace counts opened files)",
    install: "apt-get install strace",
    probe: () => onPath("strace", ["-V"]),
  },
  script: {
    tests: "the person's-terminal tests (script -qec)",
    install: "apt-get install bsdutils",
    probe: () => onPath("script", ["--version"]),
  },
  hosts: {
    tests: "the agent host end-to-end tests",
    install: "npm install --prefix test/hosts --ignore-scripts",
    probe: hostsMissing,
  },
};

const known = new Map<Part, string>();
const told = new Set<Part>();

/** Why `part` is missing ("" when present), probed once per run. */
export function missing(part: Part): string {
  let why = known.get(part);
  if (why === undefined) known.set(part, (why = PARTS[part].probe()));
  return why;
}

/** The one line a run prints for a missing part. */
export function skipLine(part: Part, why = missing(part)): string {
  return `skip: ${PARTS[part].tests} need ${part === "hosts" ? "the agent host CLIs" : part} (${why}); install: ${PARTS[part].install}`;
}

/**
 * True when `part` is usable. Otherwise: under KBZ_CI=1 throws (the file fails, naming what is
 * missing); else prints the skip line once per run and returns false, for `describe.skipIf(!…)`.
 */
export function needs(part: Part, env: Record<string, string | undefined> = process.env): boolean {
  const why = missing(part);
  if (why === "") return true;
  if (env.KBZ_CI)
    throw new Error(`KBZ_CI=1: ${PARTS[part].tests} must run here, but ${why}; install: ${PARTS[part].install}`);
  // `npm test` (scripts/test.ts) says the line once before its parallel workers start.
  const toldByRun = (env.KBZ_TEST_TOLD ?? "").split(",").includes(part);
  if (!told.has(part) && !toldByRun) {
    told.add(part);
    console.log(skipLine(part, why));
  }
  return false;
}
