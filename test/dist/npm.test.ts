// Install anywhere (issue 33): `npm run dist` makes the npm packages, and kbz installed from their
// tarballs (offline, into a scratch prefix) runs with no Bun and no checkout on PATH: --version,
// init, status, hook stop, hook install --fallback, npx; the launcher's errors name what to do.
// This file builds the host's package only (one compile); test/dist/targets.test.ts builds all.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { hostTarget, packageName, TARGETS } from "../../scripts/dist/targets.ts";
import { npm, npmEnv, npmPath } from "../../scripts/dist/npm.ts";
import { FALLBACK } from "../helpers/hook.ts";
import { kbz, REPO, tempDir } from "../helpers/kbz.ts";
import pkg from "../../package.json" with { type: "json" };

const NPM = npmPath();
const NODE = Bun.which("node", { PATH: npmEnv().PATH });
const V = pkg.version;
if (!NPM || !NODE) console.log(`skip: test/dist/npm.test.ts needs npm and node on PATH (npm: ${NPM ?? "missing"}, node: ${NODE ?? "missing"})`);

describe.skipIf(!NPM || !NODE)("npm packages from `npm run dist`, installed from their tarballs", () => {
  const host = hostTarget();
  let out = "";
  let cache = "";
  let prefix = "";
  let env: Record<string, string> = {};

  /** Run a command as a user of the installed kbz would: PATH = prefix/bin + node's dir + system dirs. */
  const user = (cmd: string, args: string[], opts: { cwd: string; input?: string; env?: Record<string, string> }) => {
    const r = spawnSync(cmd, args, { cwd: opts.cwd, env: { ...env, ...opts.env }, input: opts.input ?? "", encoding: "utf8", timeout: 60_000 });
    if (r.error) throw r.error;
    return { code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
  };
  const install = (into: string, tarballs: string[], extra: string[] = []) =>
    npm(["install", "-g", "--prefix", into, "--offline", "--cache", cache, "--no-audit", "--no-fund", "--loglevel=error", ...extra, ...tarballs], out);
  const tarball = (name: string) => path.join(out, `${name}-${V}.tgz`);

  beforeAll(() => {
    out = tempDir("kbz-dist-");
    cache = tempDir("kbz-npm-cache-");
    prefix = tempDir("kbz-prefix-");
    // `npm run dist` itself, for this machine's target only.
    npm(["run", "dist", "--", "--targets", "host", "--out", out], REPO);
    install(prefix, [tarball("kbz"), tarball(packageName(host))]);
    const home = tempDir("kbz-home-");
    env = {
      PATH: [path.join(prefix, "bin"), path.dirname(NODE!), "/usr/bin", "/bin"].join(path.delimiter),
      HOME: home,
      LANG: "C.UTF-8",
      TMPDIR: process.env.TMPDIR ?? "/tmp",
    };
  }, 600_000);

  afterAll(() => {
    // npm's own temporary folders live in the cache; nothing of this file is left in TMPDIR.
    for (const d of [out, cache, prefix]) if (d) fs.rmSync(d, { recursive: true, force: true });
  });

  test("the packages: the launcher lists every target at the same version; the host package holds its binary", () => {
    const launcher = JSON.parse(fs.readFileSync(path.join(out, "kbz", "package.json"), "utf8"));
    expect(launcher.name).toBe("kbz");
    expect(launcher.version).toBe(V);
    expect(launcher.bin).toEqual({ kbz: "bin/kbz.cjs" });
    expect(launcher.dependencies).toBeUndefined();
    expect(launcher.optionalDependencies).toEqual(Object.fromEntries(TARGETS.map((t) => [packageName(t), V])));
    expect(fs.readFileSync(path.join(out, "kbz", "hooks", "stop-hook.mjs"), "utf8")).toBe(fs.readFileSync(FALLBACK, "utf8"));
    const platform = JSON.parse(fs.readFileSync(path.join(out, packageName(host), "package.json"), "utf8"));
    expect(platform).toMatchObject({ name: `kbz-${host.name}`, version: V, os: [host.os], cpu: [host.cpu] });
    if (host.libc) expect(platform.libc).toEqual([host.libc]);
    expect(platform.bin).toBeUndefined();
    expect(fs.statSync(path.join(out, packageName(host), "bin", host.exe)).mode & 0o111).not.toBe(0);
    for (const name of ["kbz", packageName(host)]) expect(fs.existsSync(tarball(name))).toBe(true);
  });

  test("the PATH of these runs has no Bun and no checkout", () => {
    expect(Bun.which("bun", { PATH: env.PATH })).toBeNull();
    for (const dir of env.PATH!.split(path.delimiter)) expect(path.resolve(dir).startsWith(REPO + path.sep)).toBe(false);
    expect(fs.realpathSync(Bun.which("kbz", { PATH: env.PATH })!)).toBe(path.join(prefix, "lib", "node_modules", "kbz", "bin", "kbz.cjs"));
  });

  test("kbz --version, init, status and hook stop work from the prefix, as the repository's build does", () => {
    const ws = tempDir("kbz-ws-");
    expect(user("kbz", ["--version"], { cwd: ws })).toMatchObject({ code: 0, stdout: `${V} ${host.name}\n`, stderr: "" });
    const init = user("kbz", ["init"], { cwd: ws });
    expect(init.code).toBe(0);
    expect(fs.existsSync(path.join(ws, "GATES.md"))).toBe(true);
    const status = user("kbz", ["status"], { cwd: ws });
    const reference = kbz(["status"], { cwd: ws });
    expect({ code: status.code, stdout: status.stdout }).toEqual({ code: reference.code, stdout: reference.stdout });
    expect(status.code).toBe(1); // a fresh ledger's gates are unmet, and the exit code comes through the launcher
    const payload = JSON.stringify({ hook_event_name: "Stop", session_id: "npm-install", cwd: ws, stop_hook_active: false });
    const stop = user("kbz", ["hook", "stop"], { cwd: ws, input: payload });
    expect(stop.code).toBe(0);
    expect(JSON.parse(stop.stdout).decision).toBe("block");
    expect(stop.stdout).toContain("GATES:G1");
  });

  test("kbz hook install --fallback finds the Node hook inside the kbz package, and it runs", () => {
    const ws = tempDir("kbz-ws-");
    fs.writeFileSync(path.join(ws, "GATES.md"), "# Gates: x\n\n- [ ] G1: a person reviewed it\n  EVIDENCE: pending\n");
    const r = user("kbz", ["hook", "install", "--fallback"], { cwd: ws });
    expect(r.code).toBe(0);
    const script = path.join(prefix, "lib", "node_modules", "kbz", "hooks", "stop-hook.mjs");
    const settings = fs.readFileSync(path.join(ws, ".claude", "settings.local.json"), "utf8");
    expect(settings).toContain(script);
    const payload = JSON.stringify({ hook_event_name: "Stop", session_id: "fallback", cwd: ws, stop_hook_active: false });
    const stop = user(NODE!, [script, "--agent", "claude"], { cwd: ws, input: payload });
    expect(stop.code).toBe(0);
    expect(JSON.parse(stop.stdout).decision).toBe("block");
  });

  test("npx from the same tarballs runs kbz --version", () => {
    const ws = tempDir("kbz-ws-");
    const r = user(NPM!.replace(/npm$/, "npx"), ["--yes", "--offline", "--cache", cache, "-p", tarball("kbz"), "-p", tarball(packageName(host)), "--", "kbz", "--version"], {
      cwd: ws,
    });
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 0, stdout: `${V} ${host.name}\n` });
  }, 120_000);

  test("the launcher passes signals on and ends the way the binary ended", async () => {
    const ws = tempDir("kbz-ws-");
    // `kbz hook stop` waits for its payload on stdin: a live binary behind the launcher.
    const child = spawn("kbz", ["hook", "stop"], { cwd: ws, env, stdio: ["pipe", "ignore", "ignore"] });
    const binary = path.join(prefix, "lib", "node_modules", packageName(host), "bin", host.exe);
    const running = () =>
      fs.readdirSync("/proc").some((p) => {
        try {
          return /^\d+$/.test(p) && fs.readFileSync(`/proc/${p}/cmdline`, "utf8").startsWith(binary + "\0");
        } catch {
          return false;
        }
      });
    for (let i = 0; i < 200 && !running(); i++) await Bun.sleep(10);
    expect(running()).toBe(true);
    const ended = new Promise<{ code: number | null; signal: string | null }>((r) => child.on("exit", (code, signal) => r({ code, signal })));
    child.kill("SIGTERM");
    expect(await ended).toEqual({ code: null, signal: "SIGTERM" });
    for (let i = 0; i < 200 && running(); i++) await Bun.sleep(10);
    expect(running()).toBe(false);
    child.stdin.destroy();
  });

  test("installed without optional packages: the error names the missing package and the fix; hook stop still works", () => {
    const bare = tempDir("kbz-prefix-");
    install(bare, [tarball("kbz")], ["--omit=optional"]);
    const ws = tempDir("kbz-ws-");
    const launcher = path.join(bare, "bin", "kbz");
    const r = user(launcher, ["--version"], { cwd: ws });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(`the kbz binary for ${host.name} is not installed`);
    expect(r.stderr).toContain(`kbz-${host.name}@${V}`);
    expect(r.stderr).toContain(`npm install -g kbz@${V} --include=optional`);
    fs.writeFileSync(path.join(ws, "GATES.md"), "# Gates: x\n\n- [ ] G1: a person reviewed it\n  EVIDENCE: pending\n");
    const payload = JSON.stringify({ hook_event_name: "Stop", session_id: "bare", cwd: ws, stop_hook_active: false });
    const stop = user(launcher, ["hook", "stop"], { cwd: ws, input: payload });
    expect(stop.code).toBe(0);
    expect(JSON.parse(stop.stdout).decision).toBe("block");
  }, 120_000);

  test("on a platform with no binary the error names the platform, the targets and what to do; KBZ_BINARY runs a kbz built elsewhere", () => {
    const ws = tempDir("kbz-ws-");
    const fake = path.join(ws, "freebsd.cjs");
    fs.writeFileSync(fake, 'Object.defineProperty(process, "platform", { value: "freebsd" });\n');
    const launcher = path.join(prefix, "lib", "node_modules", "kbz", "bin", "kbz.cjs");
    const r = user(NODE!, ["-r", fake, launcher, "status"], { cwd: ws });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`no prebuilt kbz for this platform (freebsd-${process.arch})`);
    for (const t of TARGETS) expect(r.stderr).toContain(t.name);
    expect(r.stderr).toContain("KBZ_BINARY=/path/to/kbz");
    expect(r.stderr).toContain(path.join(prefix, "lib", "node_modules", "kbz", "hooks", "stop-hook.mjs"));
    const own = user(NODE!, ["-r", fake, launcher, "--version"], { cwd: ws, env: { KBZ_BINARY: path.join(REPO, "dist", "kbz") } });
    expect(own).toMatchObject({ code: 0, stdout: `${V} ${host.name}\n` });
  });
});
