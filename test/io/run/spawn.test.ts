import { describe, expect, test, setDefaultTimeout } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { runProcess } from "../../../src/io/run/spawn.ts";
import { tempDir } from "../../helpers/kbz.ts";

// Processes and workers on a shared, busy machine: allow far more than bun's 5 s default.
setDefaultTimeout(120_000);

const env = { PATH: "/usr/bin:/bin" };
const run = (command: string, timeoutMs = 10_000, cwd = tempDir()) =>
  runProcess({ shell: "/bin/sh", command, cwd, env, timeoutMs });
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("running one CHECK", () => {
  test("exit code and both streams are captured separately", async () => {
    const r = await run("printf out; printf err >&2; exit 7");
    expect([r.exitCode, r.signal, r.stdout.toString(), r.stderr.toString()]).toEqual([7, null, "out", "err"]);
    expect(r.timedOut || r.rawOverflow).toBe(false);
  });

  test("runs in the requested directory with the given environment", async () => {
    const dir = tempDir();
    const r = await runProcess({
      shell: "/bin/sh",
      command: 'pwd; printf "%s" "$MARK"',
      cwd: dir,
      env: { ...env, MARK: "m1" },
      timeoutMs: 5000,
    });
    expect(r.stdout.toString()).toBe(`${dir}\nm1`);
  });

  test("a timeout kills the whole process group: a forked sleeper never writes its marker", async () => {
    const dir = tempDir();
    const t0 = Date.now();
    const r = await run("(sleep 2; echo late > marker) & echo $! > sleeper.pid; sleep 30", 500, dir);
    expect(r.timedOut).toBe(true);
    expect(r.signal).toBe("SIGKILL");
    expect(Date.now() - t0).toBeLessThan(10_000); // the check itself sleeps 30 s
    const pid = Number(fs.readFileSync(path.join(dir, "sleeper.pid"), "utf8"));
    await new Promise((res) => setTimeout(res, 2500));
    expect(alive(pid)).toBe(false);
    expect(fs.existsSync(path.join(dir, "marker"))).toBe(false);
  });

  test("a shell leader that exits while its child keeps running: the timeout kills the child (signal=SIGKILL)", async () => {
    const dir = tempDir();
    const r = await run("sleep 1.5 && echo escaped > marker &", 400, dir);
    expect(r.timedOut).toBe(true);
    expect(r.signal).toBe("SIGKILL");
    expect(r.exitCode).toBe(null);
    await new Promise((res) => setTimeout(res, 1600));
    expect(fs.existsSync(path.join(dir, "marker"))).toBe(false);
  });

  test("output written by a late descendant through inherited stdio is captured (settles on close)", async () => {
    const r = await run("(sleep 0.25; echo late-output) & echo early");
    expect(r.stdout.toString()).toBe("early\nlate-output\n");
    expect(r.exitCode).toBe(0);
  });

  test("a descendant in its own session holding the pipes cannot delay settlement past the bound", async () => {
    const t0 = Date.now();
    const r = await run("setsid sh -c 'sleep 20' & sleep 30", 500);
    expect(r.timedOut).toBe(true);
    expect(Date.now() - t0).toBeLessThan(10_000); // the escaped sleeper holds the pipes for 20 s
  });

  test("more than 1 MiB of output stops the check early and keeps at most 1 MiB", async () => {
    const t0 = Date.now();
    const r = await run("yes aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 60_000);
    expect(r.rawOverflow).toBe(true);
    expect(r.stdout.length + r.stderr.length).toBe(1_048_576);
    expect(Date.now() - t0).toBeLessThan(15_000); // `yes` never stops by itself
  });

  test("a check that closes stdout early and keeps running still settles normally", async () => {
    const r = await run("exec 1>&-; sleep 0.2; echo done >&2");
    expect(r.exitCode).toBe(0);
    expect(r.stderr.toString()).toBe("done\n");
  });

  test("a missing working directory is a spawn error, not a hang", async () => {
    const r = await runProcess({
      shell: "/bin/sh",
      command: "true",
      cwd: "/definitely/missing/dir",
      env,
      timeoutMs: 2000,
    });
    expect(r.spawnError).not.toBe(null);
    expect(r.exitCode).toBe(null);
  });
});
