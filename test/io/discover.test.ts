import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { isValidId } from "../../src/core/workspace/ids.ts";
import { listScopes, resolveTarget } from "../../src/io/discover.ts";
import { globsOverlap, normalizeOwnsPath } from "../../src/core/workspace/paths.ts";
import { tempDir, writeTree } from "../helpers/kbz.ts";

const LEDGER = "- [ ] G1: t\n";

describe("scope ids", () => {
  test("1-64 characters, starting with a letter or digit, no '.' or '..'", () => {
    expect(isValidId("api")).toBe(true);
    expect(isValidId("a".repeat(64))).toBe(true);
    for (const bad of ["", ".", "..", "../x", "a/b", "a".repeat(65), "-x", "a\u001bb", "a b"])
      expect(isValidId(bad)).toBe(false);
  });
});

describe("discovery", () => {
  test("lists real scope directories only: not locks, not links, not files, not invalid ids", () => {
    const root = tempDir();
    writeTree(root, {
      ".unlazy/api/GATES.md": LEDGER,
      ".unlazy/web/gates/leaf-1.md": LEDGER,
      ".unlazy/locks/x.lease": "{}",
      ".unlazy/file": "",
    });
    fs.mkdirSync(path.join(root, ".unlazy", "-bad"));
    fs.symlinkSync(path.join(root, ".unlazy", "api"), path.join(root, ".unlazy", "alias"));
    expect(listScopes(root)).toEqual(["api", "web"]);
  });

  test("one scope is used without a flag; several need --scope or a bound session", () => {
    const root = tempDir();
    writeTree(root, { ".unlazy/solo/GATES.md": LEDGER });
    expect(resolveTarget({ root })).toMatchObject({ mode: "scope", scope: "solo" });
    writeTree(root, { ".unlazy/web/GATES.md": LEDGER, ".unlazy/web/session": "sess-1\n" });
    expect(() => resolveTarget({ root })).toThrow(
      "2 scopes present (solo, web); pass --scope <id> or set UNLAZY_SCOPE. Refusing to guess.",
    );
    // A scope nobody is bound to is every session's; one bound to another session is left to it.
    expect(resolveTarget({ root, sessionId: "sess-1" }).files).toEqual([
      path.join(root, ".unlazy/solo/GATES.md"),
      path.join(root, ".unlazy/web/GATES.md"),
    ]);
    writeTree(root, { ".unlazy/solo/session": "sess-2\n" });
    expect(resolveTarget({ root, sessionId: "sess-1" })).toMatchObject({ scope: "web" });
    expect(resolveTarget({ root, scope: "solo" }).files).toEqual([path.join(root, ".unlazy/solo/GATES.md")]);
  });

  test("scoped files are GATES.md then gates/*.md sorted; other names are ignored", () => {
    const root = tempDir();
    writeTree(root, {
      ".unlazy/s/GATES.md": LEDGER,
      ".unlazy/s/gates/leaf-2.md": LEDGER,
      ".unlazy/s/gates/leaf-1.md": LEDGER,
      ".unlazy/s/gates/notes.txt": "",
    });
    expect(resolveTarget({ root }).files.map((f) => path.relative(root, f))).toEqual([
      ".unlazy/s/GATES.md",
      ".unlazy/s/gates/leaf-1.md",
      ".unlazy/s/gates/leaf-2.md",
    ]);
  });

  test("an unknown scope is an error naming the scopes there are; an invalid id is refused", () => {
    const root = tempDir();
    writeTree(root, { ".unlazy/api/GATES.md": LEDGER });
    expect(() => resolveTarget({ root, scope: "nope" })).toThrow('no such scope "nope" under .unlazy/ (have: api)');
    expect(() => resolveTarget({ root, scope: "../x" })).toThrow("scope must match");
  });

  test("a pinned scope that is a link to an outside directory fails closed with a discovery error", () => {
    const root = tempDir();
    const outside = tempDir();
    writeTree(outside, { "GATES.md": LEDGER });
    fs.mkdirSync(path.join(root, ".unlazy"));
    fs.symlinkSync(outside, path.join(root, ".unlazy", "evil"));
    const t = resolveTarget({ root, scope: "evil" });
    expect(t.files).toEqual([]);
    expect(t.discoveryErrors[0]!.message).toBe("scope directory must be a real directory inside the repository");
  });

  test("legacy layout: GATES.md plus gates/*.md; a linked gates/ directory is a discovery error", () => {
    const root = tempDir();
    writeTree(root, { "GATES.md": LEDGER, "gates/a.md": LEDGER });
    expect(resolveTarget({ root })).toMatchObject({ mode: "legacy", discoveryErrors: [] });
    const other = tempDir();
    writeTree(other, { "x.md": LEDGER });
    const root2 = tempDir();
    fs.symlinkSync(other, path.join(root2, "gates"));
    expect(resolveTarget({ root: root2 }).discoveryErrors).toHaveLength(1);
  });

  test("nothing anywhere is mode none", () => {
    expect(resolveTarget({ root: tempDir() }).mode).toBe("none");
  });
});

describe("OWNS globs", () => {
  test("normalisation trims, converts backslashes, drops ./ and empty or '.' segments", () => {
    expect(normalizeOwnsPath(" ./src/./same.js ")).toEqual({ ok: true, glob: "src/same.js" });
    expect(normalizeOwnsPath("src\\api\\**")).toEqual({ ok: true, glob: "src/api/**" });
  });

  test("conservative overlap: wildcards in a compared segment, prefixes and equality overlap", () => {
    expect(globsOverlap("src/api/**", "src/web/**")).toBe(false);
    expect(globsOverlap("src/shared/**", "src/shared/util.ts")).toBe(true);
    expect(globsOverlap("src/a*.js", "src/ab*.js")).toBe(true);
    expect(globsOverlap("src/api", "src/api/**")).toBe(true);
    expect(globsOverlap("**", "docs/x.md")).toBe(true);
    expect(globsOverlap("src/x.js", "src/x.js")).toBe(true);
    expect(globsOverlap("src/./same.js", "src/same.js")).toBe(true);
    expect(globsOverlap("../x", "y")).toBe(true);
  });
});
