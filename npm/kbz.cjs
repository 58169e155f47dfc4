#!/usr/bin/env node
// kbz's npm launcher (bin/kbz.cjs of the `kbz` package; `npm run dist` copies it there).
// It runs the compiled kbz of this platform, from the package kbz-<os>-<cpu>[-musl] that npm
// installed as an optional dependency, with the same arguments, stdin/stdout/stderr, exit code
// and signals. Dependency-free, Node >= 16. Where no binary is installed, `kbz hook install` and
// `kbz hook stop` still work: they run the Node fallback shipped in this package (hooks/).
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const { spawn } = require("child_process");

const manifest = require("../package.json");
const VERSION = manifest.version;
const TARGETS = Object.keys(manifest.optionalDependencies || {}).map((name) => name.replace(/^kbz-/, ""));
const HOOK = path.join(__dirname, "..", "hooks", "stop-hook.mjs");
const INSTALLER = path.join(__dirname, "..", "hooks", "install-hook.mjs");
const DOCS = "https://www.npmjs.com/package/kbz#install";
const args = process.argv.slice(2);

/**
 * musl Linux (Alpine…) or glibc? ldd says (a glibc script, or musl's loader itself); else Node's
 * report names the glibc it runs on. A musl loader in /lib proves nothing: Debian's musl package adds one.
 */
function isMusl() {
  try {
    const ldd = fs.readFileSync("/usr/bin/ldd", "latin1");
    if (ldd.indexOf("musl") >= 0) return true;
    if (ldd.indexOf("GNU C Library") >= 0 || ldd.indexOf("GLIBC") >= 0) return false;
  } catch (e) {}
  try {
    return !process.report.getReport().header.glibcVersionRuntime;
  } catch (e) {
    return false;
  }
}

/** The target name this machine needs, as `kbz --version` prints it: linux-x64, linux-arm64-musl… */
function targetName() {
  const system = process.platform === "win32" ? "windows" : process.platform;
  const name = system + "-" + process.arch;
  return process.platform === "linux" && isMusl() ? name + "-musl" : name;
}

/** The installed binary of package kbz-<target>, or null when npm did not install it. */
function findBinary(target) {
  let manifestPath;
  try {
    manifestPath = require.resolve("kbz-" + target + "/package.json");
  } catch (e) {
    return null;
  }
  const binary = path.join(path.dirname(manifestPath), "bin", process.platform === "win32" ? "kbz.exe" : "kbz");
  return fs.existsSync(binary) ? binary : null;
}

function fail(lines) {
  process.stderr.write(lines.join("\n") + "\n");
  process.exit(2);
}

/** Run `file` as if exec'd: same stdio, exit code, and the signals this process receives. */
function run(file, argv) {
  const child = spawn(file, argv, { stdio: "inherit" });
  const forwarded = [];
  // On Windows a console Ctrl+C reaches the child itself; killing it here would end it abruptly.
  const names = process.platform === "win32" ? ["SIGINT", "SIGBREAK"] : ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGUSR2"];
  for (const name of names) {
    const handler = () => {
      if (process.platform !== "win32") {
        try {
          child.kill(name);
        } catch (e) {}
      }
    };
    process.on(name, handler);
    forwarded.push([name, handler]);
  }
  child.on("error", (e) => fail(["kbz: cannot run " + file + ": " + e.message, "  Reinstall kbz (npm install -g kbz@" + VERSION + "), or see " + DOCS]));
  child.on("exit", (code, signal) => {
    if (signal) {
      // End the same way, so the caller sees the signal (a shell prints 130 for SIGINT).
      for (const [name, handler] of forwarded) process.removeListener(name, handler);
      try {
        process.kill(process.pid, signal);
      } catch (e) {}
      setTimeout(() => process.exit(128 + (os.constants.signals[signal] || 0)), 100);
      return;
    }
    process.exit(code === null ? 1 : code);
  });
}

function main() {
  if (process.env.KBZ_BINARY) return run(process.env.KBZ_BINARY, args);
  const target = targetName();
  const binary = TARGETS.indexOf(target) >= 0 ? findBinary(target) : null;
  if (binary) return run(binary, args);
  // The Stop guard keeps working on Node alone: the fallback hook is the same code as `kbz hook
  // stop`, and its installer the same as `kbz hook install --fallback`.
  if (args[0] === "hook" && args[1] === "stop" && fs.existsSync(HOOK)) return run(process.execPath, [HOOK].concat(args.slice(2)));
  if (args[0] === "hook" && args[1] === "install" && fs.existsSync(INSTALLER)) return run(process.execPath, [INSTALLER].concat(args.slice(2)));
  const hookLine = "  The Stop guard runs on Node alone here: `kbz hook install` registers " + HOOK + " with your agent, and `kbz hook stop` runs it.";
  if (TARGETS.indexOf(target) < 0) {
    fail([
      "kbz: no prebuilt kbz for this platform (" + target + "); kbz " + VERSION + " ships binaries for " + TARGETS.join(", ") + ".",
      "  To run kbz here, build it from source where Bun runs (" + DOCS + ") and set KBZ_BINARY=/path/to/kbz.",
      hookLine,
    ]);
  }
  // Not installed says nothing of why: npm leaves an optional package out when told to (--omit=optional,
  // omit=optional in .npmrc) and, silently, when it cannot get it (kbz installed from its tarball alone,
  // a registry or mirror without it). Both causes are named, neither is asserted.
  const pkg = "kbz-" + target + "@" + VERSION;
  fail([
    "kbz: the kbz binary for " + target + " is not installed: the package " + pkg + " that holds it is not beside kbz.",
    "  npm leaves it out under --omit=optional (or omit=optional in .npmrc), and when it could not fetch it.",
    "  Install it: npm install -g " + pkg + " (or reinstall kbz with it: npm install -g kbz@" + VERSION + " --include=optional).",
    hookLine,
  ]);
}

main();
