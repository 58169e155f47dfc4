// Where a compiled kbz finds the Node fallback hook (`kbz hook install --fallback`): next to the
// checkout it was built in, or in the `kbz` npm package beside or around its platform package.
import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { fallbackHookPath } from "../../src/ops/hook.ts";
import { tempDir } from "../helpers/kbz.ts";

function touch(file: string): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, "");
  return file;
}

describe("fallbackHookPath of a compiled kbz", () => {
  test("a checkout's dist/kbz: hooks/ of the checkout", () => {
    const repo = tempDir();
    const hook = touch(path.join(repo, "hooks", "stop-hook.mjs"));
    expect(fallbackHookPath(path.join(repo, "dist", "kbz"), true)).toBe(hook);
  });

  test("npm, hoisted (global installs): node_modules/kbz-linux-x64 beside node_modules/kbz", () => {
    const nm = path.join(tempDir(), "lib", "node_modules");
    const hook = touch(path.join(nm, "kbz", "hooks", "stop-hook.mjs"));
    expect(fallbackHookPath(path.join(nm, "kbz-linux-x64", "bin", "kbz"), true)).toBe(hook);
  });

  test("npm, nested: node_modules/kbz/node_modules/kbz-windows-x64", () => {
    const pkg = path.join(tempDir(), "node_modules", "kbz");
    const hook = touch(path.join(pkg, "hooks", "stop-hook.mjs"));
    expect(fallbackHookPath(path.join(pkg, "node_modules", "kbz-windows-x64", "bin", "kbz.exe"), true)).toBe(hook);
  });

  test("nowhere: the checkout location, for the error message", () => {
    const dir = tempDir();
    expect(fallbackHookPath(path.join(dir, "kbz-linux-x64", "bin", "kbz"), true)).toBe(
      path.join(dir, "kbz-linux-x64", "hooks", "stop-hook.mjs"),
    );
  });
});
