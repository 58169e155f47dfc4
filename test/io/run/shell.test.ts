import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { pathFacts, requestedShell, resolveShell } from "../../../src/io/run/shell.ts";
import { UsageError } from "../../../src/core/errors.ts";
import { tempDir } from "../../helpers/kbz.ts";

describe("shell resolution", () => {
  test("--shell wins over UNLAZY_SHELL, which wins over /bin/sh", () => {
    expect(requestedShell("bash", { UNLAZY_SHELL: "dash" })).toBe("bash");
    expect(requestedShell(undefined, { UNLAZY_SHELL: "dash" })).toBe("dash");
    expect(requestedShell(undefined, {})).toBe("/bin/sh");
    expect(requestedShell(undefined, { ComSpec: "C:\\Windows\\cmd.exe" }, "win32")).toBe("C:\\Windows\\cmd.exe");
  });

  test("Windows: %ComSpec% in any spelling (names are case-insensitive there), else cmd.exe; UNLAZY_SHELL still wins", () => {
    expect(requestedShell(undefined, { COMSPEC: "D:\\Win\\cmd.exe" }, "win32")).toBe("D:\\Win\\cmd.exe");
    expect(requestedShell(undefined, { comspec: "C:\\cmd.exe", unlazy_shell: "pwsh" }, "win32")).toBe("pwsh");
    expect(requestedShell(undefined, {}, "win32")).toBe("cmd.exe");
    // Elsewhere names are exact: a lower-case comspec means nothing on Linux.
    expect(requestedShell(undefined, { COMSPEC: "C:\\cmd.exe", unlazy_shell: "zsh" }, "linux")).toBe("/bin/sh");
  });

  test("Windows: cmd.exe is found on Path (any spelling) with a PATHEXT extension", () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, "cmd.EXE"), "");
    expect(resolveShell("cmd", { Path: dir, PathExt: ".EXE" }, "win32")).toBe(path.join(dir, "cmd.EXE"));
  });

  test("a bare name is searched on PATH and the first regular file wins", () => {
    const dir = tempDir();
    fs.mkdirSync(path.join(dir, "a", "mysh"), { recursive: true }); // a directory does not count
    fs.mkdirSync(path.join(dir, "b"));
    fs.writeFileSync(path.join(dir, "b", "mysh"), "#!/bin/sh\n", { mode: 0o755 });
    expect(resolveShell("mysh", { PATH: `${dir}/a:${dir}/b` })).toBe(path.join(dir, "b", "mysh"));
  });

  test("a name with a slash is resolved against the process cwd, not PATH", () => {
    expect(resolveShell("/bin/sh", { PATH: "" })).toBe("/bin/sh");
  });

  test("an unresolvable shell is a usage error naming it", () => {
    expect(() => resolveShell("definitely-missing-shell", { PATH: "/usr/bin:/bin" })).toThrow(
      new UsageError('cannot resolve command shell "definitely-missing-shell" from PATH'),
    );
  });
});

describe("PATH facts", () => {
  test("evidence fingerprint matches the golden ledger (PATH=/usr/bin:/bin → ec1f3f84fccb/2 entries)", () => {
    expect(pathFacts("/usr/bin:/bin").fingerprint).toBe("ec1f3f84fccb/2 entries");
    expect(pathFacts("").fingerprint.endsWith("/0 entries")).toBe(true);
  });

  test("the transcript turns CR/LF into spaces and caps at 800 characters plus ...", () => {
    expect(pathFacts("/a\r\n/b").transcript).toBe("/a  /b");
    const long = "/x".repeat(500);
    expect(pathFacts(long).transcript).toBe(long.slice(0, 800) + "...");
  });
});
