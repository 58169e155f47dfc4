// Windows containment (src/io/run/taskkill.ts), as the originals: only the system's own taskkill
// runs (never one from PATH), `/pid <pid> /f /t` with a 1 s bound, and the shell alone is killed
// when it cannot. These are the decisions; killing a real Windows tree is not tested here (Linux CI).
import { describe, expect, test } from "bun:test";
import { killTree, trustedTaskkill } from "../../../src/io/run/taskkill.ts";

const sys = { SystemRoot: "C:\\Windows", WINDIR: "C:\\Windows", SystemDrive: "C:" };

describe("the trusted taskkill path", () => {
  test("C:\\Windows\\System32\\taskkill.exe regardless of PATH", () => {
    expect(trustedTaskkill({ ...sys, PATH: "C:\\evil" })).toBe("C:\\Windows\\System32\\taskkill.exe");
  });
  test("a D: system drive; slashes, trailing backslashes and case normalised; names in any case", () => {
    expect(trustedTaskkill({ SYSTEMROOT: "d:/windows/", windir: "D:\\Windows\\\\", SYSTEMDRIVE: "d:\\" })).toBe(
      "d:\\windows\\System32\\taskkill.exe",
    );
  });
  test("untrusted: an arbitrary SystemRoot, disagreeing WINDIR, another SystemDrive, or missing variables", () => {
    expect(
      trustedTaskkill({ ...sys, SystemRoot: "C:\\repo\\fake-windows", WINDIR: "C:\\repo\\fake-windows" }),
    ).toBeNull();
    expect(trustedTaskkill({ ...sys, WINDIR: "D:\\Windows" })).toBeNull();
    expect(trustedTaskkill({ ...sys, SystemDrive: "D:" })).toBeNull();
    expect(trustedTaskkill({})).toBeNull();
  });
});

describe("killTree", () => {
  const calls: unknown[][] = [];
  const fakeRun = (status: number | null, error?: NodeJS.ErrnoException) =>
    ((cmd: string, args: string[], opts: unknown) => {
      calls.push([cmd, args, opts]);
      return { status, signal: null, error } as any;
    }) as any;
  const killed: unknown[][] = [];
  const fakeKill = ((pid: number, sig: string) => {
    killed.push([pid, sig]);
    return true;
  }) as any;

  test("taskkill /pid <pid> /f /t, hidden, 1 s bound with SIGKILL, a minimal environment (issue 42 item 1); success needs no fallback", () => {
    calls.length = killed.length = 0;
    expect(
      killTree(42, { ...sys, PATH: "C:\\repo\\bin", NODE_OPTIONS: "--require evil" }, fakeRun(0), fakeKill),
    ).toBeNull();
    const env = { SystemRoot: "C:\\Windows", WINDIR: "C:\\Windows", SystemDrive: "C:", PATH: "C:\\Windows\\System32" };
    expect(calls).toEqual([
      [
        "C:\\Windows\\System32\\taskkill.exe",
        ["/pid", "42", "/f", "/t"],
        { stdio: "ignore", windowsHide: true, timeout: 1000, killSignal: "SIGKILL", env },
      ],
    ]);
    expect(killed).toEqual([]);
  });

  test("exit 5, ENOENT, or no trusted path: the shell is killed and the diagnostic says why", () => {
    killed.length = 0;
    expect(killTree(7, sys, fakeRun(5), fakeKill)).toBe("taskkill failed (exit 5); child fallback requested");
    const enoent = Object.assign(new Error("spawn ENOENT"), { code: "ENOENT" });
    expect(killTree(7, sys, fakeRun(null, enoent), fakeKill)).toBe(
      "taskkill failed (ENOENT); child fallback requested",
    );
    expect(killTree(7, {}, fakeRun(0), fakeKill)).toBe(
      "taskkill failed (trusted system taskkill path unavailable); child fallback requested",
    );
    expect(killed).toEqual([
      [7, "SIGKILL"],
      [7, "SIGKILL"],
      [7, "SIGKILL"],
    ]);
  });
});
