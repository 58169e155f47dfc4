// `npm run dist`: the npm packages of kbz under dist/npm/: the launcher package `kbz` (bin/kbz.cjs,
// the Node fallback Stop hook and its Node installer) and one package per target holding its compiled binary, each as a
// folder and as the tarball `npm pack` makes of it. The generated packages are what gets published;
// the repository's package.json stays the private development manifest.
//
//   bun scripts/dist.ts [--targets all|host|linux-x64,darwin-arm64,…] [--out DIR] [--reproducible]
//
// --reproducible builds every Linux binary a second time and fails unless both builds are
// byte-identical. Every binary is checked with `file` (format and architecture) when it is installed.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { buildFallbackHook, buildNodeInstaller } from "./fallback-hook.ts";
import { npm } from "./dist/npm.ts";
import { runtimeFor } from "./dist/runtime.ts";
import { hostTarget, packageName, TARGETS, type Target } from "./dist/targets.ts";

const REPO = path.resolve(import.meta.dir, "..");
const root = JSON.parse(fs.readFileSync(path.join(REPO, "package.json"), "utf8"));
const VERSION: string = root.version;
const BUN_VERSION = Bun.version;

const args = process.argv.slice(2);
const flag = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};

function chosenTargets(spec = "all"): Target[] {
  if (spec === "all") return TARGETS;
  if (spec === "host") return [hostTarget()];
  return spec.split(",").map((name) => {
    const t = TARGETS.find((t) => t.name === name);
    if (!t) throw new Error(`unknown target ${name}; targets: ${TARGETS.map((t) => t.name).join(", ")}, all, host`);
    return t;
  });
}

function run(cmd: string, argv: string[], cwd = REPO): string {
  const r = spawnSync(cmd, argv, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  if (r.error || r.status !== 0)
    throw new Error(
      `${cmd} ${argv.join(" ")} failed: ${r.error?.message ?? `exit ${r.status}`}\n${r.stdout}${r.stderr}`,
    );
  return r.stdout;
}

function writeJson(file: string, value: unknown): void {
  fs.writeFileSync(file, JSON.stringify(value, null, 2) + "\n");
}

/** This machine's target: Bun embeds itself for it, so it needs no runtime download. */
const HOST: Target | undefined = (() => {
  try {
    return hostTarget();
  } catch {
    return undefined;
  }
})();

/** Compile kbz for `target` into `outfile` with build.ts (the same bundle and plugins as `npm run build`). */
function compile(target: Target, outfile: string): number {
  const argv = ["build.ts", "--target", target.bun, "--outfile", outfile];
  if (target !== HOST) argv.push("--executable-path", runtimeFor(target, BUN_VERSION));
  const started = performance.now();
  run(process.execPath, argv);
  return performance.now() - started;
}

const COMMON = {
  version: VERSION,
  license: root.license,
  ...(root.repository ? { repository: root.repository } : {}),
  ...(root.homepage ? { homepage: root.homepage } : {}),
};

function platformPackage(target: Target, dir: string): void {
  writeJson(path.join(dir, "package.json"), {
    name: packageName(target),
    ...COMMON,
    description: `The kbz binary for ${target.name}; install the kbz package, which runs it.`,
    os: [target.os],
    cpu: [target.cpu],
    ...(target.libc ? { libc: [target.libc] } : {}),
    files: ["bin/"],
    preferUnplugged: true,
  });
  fs.writeFileSync(
    path.join(dir, "README.md"),
    `# ${packageName(target)}\n\nThe compiled kbz ${VERSION} for ${target.name}. Install [kbz](https://www.npmjs.com/package/kbz) instead: its launcher picks the package of your platform.\n`,
  );
  fs.copyFileSync(path.join(REPO, "LICENSE"), path.join(dir, "LICENSE"));
}

async function launcherPackage(dir: string): Promise<void> {
  fs.mkdirSync(path.join(dir, "bin"), { recursive: true });
  fs.mkdirSync(path.join(dir, "hooks"), { recursive: true });
  fs.copyFileSync(path.join(REPO, "npm", "kbz.cjs"), path.join(dir, "bin", "kbz.cjs"));
  fs.chmodSync(path.join(dir, "bin", "kbz.cjs"), 0o755);
  // Generated afresh from src/ (the committed hooks/stop-hook.mjs is the same when up to date).
  fs.writeFileSync(path.join(dir, "hooks", "stop-hook.mjs"), await buildFallbackHook(), { mode: 0o755 });
  fs.writeFileSync(path.join(dir, "hooks", "install-hook.mjs"), await buildNodeInstaller(), { mode: 0o755 });
  fs.copyFileSync(path.join(REPO, "npm", "README.md"), path.join(dir, "README.md"));
  fs.copyFileSync(path.join(REPO, "LICENSE"), path.join(dir, "LICENSE"));
  writeJson(path.join(dir, "package.json"), {
    name: "kbz",
    ...COMMON,
    description: root.description,
    bin: { kbz: "bin/kbz.cjs" },
    files: ["bin/", "hooks/"],
    engines: { node: ">=16" },
    // Every target, always: npm installs the one whose os/cpu/libc match.
    optionalDependencies: Object.fromEntries(TARGETS.map((t) => [packageName(t), VERSION])),
  });
}

function pack(dir: string, out: string): string {
  const packed = JSON.parse(npm(["pack", dir, "--json", "--ignore-scripts", "--pack-destination", out], out)) as {
    filename: string;
  }[];
  return path.join(out, packed[0]!.filename);
}

function fileType(binary: string): string | null {
  const r = spawnSync("file", ["-b", binary], { encoding: "utf8" });
  return r.error || r.status !== 0 ? null : r.stdout.trim();
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

async function main(): Promise<void> {
  const targets = chosenTargets(flag("--targets"));
  const out = path.resolve(flag("--out") ?? path.join(REPO, "dist", "npm"));
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  const problems: string[] = [];

  const launcher = path.join(out, "kbz");
  await launcherPackage(launcher);
  console.log(`kbz ${VERSION}: ${path.relative(process.cwd(), pack(launcher, out))}`);

  for (const target of targets) {
    const dir = path.join(out, packageName(target));
    const binary = path.join(dir, "bin", target.exe);
    fs.mkdirSync(path.dirname(binary), { recursive: true });
    const ms = compile(target, binary);
    platformPackage(target, dir);
    const tarball = pack(dir, out);
    const type = fileType(binary);
    if (type !== null && !target.file.test(type))
      problems.push(`${target.name}: \`file\` reports "${type}", expected ${target.file}`);
    console.log(
      `${packageName(target)}: ${mib(fs.statSync(binary).size)} binary, ${mib(fs.statSync(tarball).size)} ${path.relative(process.cwd(), tarball)}, built in ${(ms / 1000).toFixed(1)} s` +
        (type === null ? " (`file` not installed: format not checked)" : ` (${type.split(",")[0]})`),
    );
    if (args.includes("--reproducible") && target.os === "linux") {
      const again = fs.mkdtempSync(path.join(os.tmpdir(), "kbz-dist-again-"));
      try {
        const second = path.join(again, target.exe);
        compile(target, second);
        if (!Buffer.from(fs.readFileSync(binary)).equals(fs.readFileSync(second)))
          problems.push(`${target.name}: two builds of the same commit differ`);
        else console.log(`${packageName(target)}: a second build is byte-identical`);
      } finally {
        fs.rmSync(again, { recursive: true, force: true });
      }
    }
  }
  if (problems.length > 0) {
    for (const p of problems) console.error(`dist: ${p}`);
    process.exit(1);
  }
}

await main();
