import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { execFileSync } from "node:child_process";
import { decodeLedgerText, firstInvalidUtf8 } from "../../src/core/text/decode.ts";
import { isInside } from "../../src/core/workspace/inside.ts";
import { readConsistent, ScopeReader } from "../../src/io/scope.ts";
import { readStable, readStableWith, ScopeTextCache, type StableReadOptions } from "../../src/io/read.ts";
import { writeAtomic } from "../../src/io/fs.ts";
import { ReadError } from "../../src/core/errors.ts";
import { tempDir } from "../helpers/kbz.ts";

const opts = (root?: string, maxBytes = 1024) => ({ label: "gate ledger", maxBytes, root });

function readErr(file: string, o: StableReadOptions = opts()): ReadError {
  try {
    readStable(file, o);
  } catch (e) {
    return e as ReadError;
  }
  throw new Error("expected a ReadError");
}

describe("stable reader", () => {
  test("a regular file round-trips, also through a root alias", () => {
    const root = tempDir();
    fs.writeFileSync(path.join(root, "a.md"), "hello");
    expect(readStable(path.join(root, "a.md"), opts(root)).toString()).toBe("hello");
    const alias = path.join(tempDir(), "alias");
    fs.symlinkSync(root, alias);
    expect(readStable(path.join(alias, "a.md"), opts(root)).toString()).toBe("hello");
  });

  test("symlinks (dangling too), hard links and directories are not one regular single-link file", () => {
    const root = tempDir();
    fs.writeFileSync(path.join(root, "victim"), "secret");
    fs.symlinkSync(path.join(root, "victim"), path.join(root, "link.md"));
    fs.symlinkSync(path.join(root, "nowhere"), path.join(root, "dangling.md"));
    fs.linkSync(path.join(root, "victim"), path.join(root, "hard.md"));
    fs.mkdirSync(path.join(root, "dir.md"));
    for (const name of ["link.md", "dangling.md", "hard.md", "dir.md"]) {
      const e = readErr(path.join(root, name));
      expect(e.code).toBe("UNSAFE");
      expect(e.message).toContain("gate ledger must be one unchanged regular single-link file");
    }
  });

  // Opening a FIFO without a writer would wait forever: returning at all is the behaviour.
  test("a FIFO is refused without waiting for a writer", () => {
    const root = tempDir();
    const fifo = path.join(root, "GATES.md");
    execFileSync("mkfifo", [fifo]);
    expect(readErr(fifo).code).toBe("UNSAFE");
  });

  test("the size cap is enforced with the label and the cap in the message", () => {
    const root = tempDir();
    fs.writeFileSync(path.join(root, "big.md"), "12345");
    const e = readErr(path.join(root, "big.md"), opts(undefined, 4));
    expect(e.code).toBe("TOO_LARGE");
    expect(e.message).toContain("exceeds 4 bytes");
  });

  test("a file outside the root is refused; an absent file keeps the ENOENT code", () => {
    const root = tempDir();
    const outside = path.join(tempDir(), "x.md");
    fs.writeFileSync(outside, "x");
    expect(readErr(outside, opts(root)).code).toBe("OUTSIDE");
    expect(readErr(path.join(root, "missing.md")).code).toBe("ENOENT");
  });

  test("reads share one buffer, yet every returned Buffer stays the caller's: later reads never change it", () => {
    const root = tempDir();
    fs.writeFileSync(path.join(root, "a.md"), "a".repeat(300));
    fs.writeFileSync(path.join(root, "b.md"), "b".repeat(100));
    const a = readStable(path.join(root, "a.md"), opts(root));
    const b = readStable(path.join(root, "b.md"), opts(root));
    expect(a.toString()).toBe("a".repeat(300));
    expect(b.toString()).toBe("b".repeat(100));
  });

  test("a read nested inside another read's callback gets its own bytes", () => {
    const root = tempDir();
    fs.writeFileSync(path.join(root, "outer.md"), "outer");
    fs.writeFileSync(path.join(root, "inner.md"), "inner!");
    const seen = readStableWith(path.join(root, "outer.md"), opts(root), (outer) => {
      const inner = readStableWith(path.join(root, "inner.md"), opts(root), (b) => b.toString());
      return [outer.toString(), inner];
    });
    expect(seen).toEqual(["outer", "inner!"]);
  });

  test("a file larger than any earlier one grows the shared buffer; a failed read leaves it usable", () => {
    const root = tempDir();
    fs.writeFileSync(path.join(root, "small.md"), "s");
    fs.writeFileSync(path.join(root, "big.md"), "x".repeat(200_000));
    fs.writeFileSync(path.join(root, "huge.md"), "y".repeat(2000));
    expect(readStable(path.join(root, "small.md"), opts(root)).toString()).toBe("s");
    expect(readStable(path.join(root, "big.md"), opts(root, 300_000)).length).toBe(200_000);
    expect(readErr(path.join(root, "huge.md"), opts(root, 1000)).code).toBe("TOO_LARGE");
    expect(readStable(path.join(root, "small.md"), opts(root)).toString()).toBe("s");
  });

  test("the folder realpath cache gives the same root verdicts as a realpath per file", () => {
    const root = tempDir();
    const outside = tempDir();
    fs.mkdirSync(path.join(root, "gates"));
    fs.writeFileSync(path.join(root, "gates", "a.md"), "a");
    fs.writeFileSync(path.join(outside, "b.md"), "b");
    fs.symlinkSync(outside, path.join(root, "escape"));
    const realDirs = new Map<string, string>();
    expect(readStable(path.join(root, "gates", "a.md"), { ...opts(root), realDirs }).toString()).toBe("a");
    expect(readErr(path.join(root, "escape", "b.md"), { ...opts(root), realDirs }).code).toBe("OUTSIDE");
    expect(realDirs.size).toBe(2);
  });
});

describe("isInside", () => {
  test("prefix answers agree with path.relative, including '..' segments and sibling prefixes", () => {
    expect(isInside("/r", "/r")).toBe(true);
    expect(isInside("/r", "/r/a/b")).toBe(true);
    expect(isInside("/r/", "/r/a")).toBe(true);
    expect(isInside("/r", "/rx/a")).toBe(false);
    expect(isInside("/r", "/r/../x")).toBe(false);
    expect(isInside("/r", "/r/a/../b")).toBe(true);
    expect(isInside("/r", "/")).toBe(false);
  });
});

describe("ledger text decoding", () => {
  test("valid UTF-8 decodes; invalid UTF-8 and NUL bytes are located by line; a BOM is stripped", () => {
    expect(decodeLedgerText(Buffer.from("a\n한\n"))).toEqual({ text: "a\n한\n" });
    expect(decodeLedgerText(Buffer.from([0x61, 0x0a, 0x0a, 0xff]))).toEqual({
      line: 3,
      message: "invalid UTF-8 at byte 3; a ledger must be UTF-8 text",
    });
    expect(decodeLedgerText(Buffer.from("a\nb\0"))).toMatchObject({ line: 2 });
    expect(decodeLedgerText(Buffer.from("\ufeff# T\n"))).toEqual({ text: "# T\n" });
  });

  test("the UTF-8 validator rejects overlongs, surrogates, truncation and out-of-range code points", () => {
    expect(firstInvalidUtf8(new Uint8Array([0xc0, 0x80]))).toBe(0);
    expect(firstInvalidUtf8(new Uint8Array([0x41, 0xed, 0xa0, 0x80]))).toBe(1);
    expect(firstInvalidUtf8(new Uint8Array([0xe2, 0x82]))).toBe(0);
    expect(firstInvalidUtf8(new Uint8Array([0xf4, 0x90, 0x80, 0x80]))).toBe(0);
    expect(firstInvalidUtf8(Buffer.from("ok ✓ 🎉"))).toBe(-1);
  });
});

describe("stable reader against a concurrent writer", () => {
  // A writer that, for a while, replaces the file by rename and rewrites it in place in two
  // halves. Each version is one repeated letter and every version has its own length, so a read
  // that mixed two versions, or that kept bytes of a version the name no longer leads to, shows.
  const WRITER = `
    const fs = require("node:fs");
    const [file, ms] = [process.argv[2], Number(process.argv[3])];
    const versions = ["a".repeat(3000), "b".repeat(5000), "c".repeat(7000)];
    const end = Date.now() + ms;
    for (let k = 0; Date.now() < end; k++) {
      const v = versions[k % versions.length];
      if (k % 2 === 0) {
        fs.writeFileSync(file + ".tmp", v);
        fs.renameSync(file + ".tmp", file);
      } else {
        const fd = fs.openSync(file, "w");
        fs.writeSync(fd, v.slice(0, v.length >> 1));
        fs.writeSync(fd, v.slice(v.length >> 1));
        fs.closeSync(fd);
      }
    }`;

  const VERSIONS = ["a".repeat(3000), "b".repeat(5000), "c".repeat(7000)];
  const isState = (t: string) => t === "" || VERSIONS.some((v) => v.length >= t.length && v.startsWith(t));

  function race(check: (file: string) => string | null): { whole: number; refused: number } {
    const root = tempDir();
    fs.mkdirSync(path.join(root, ".unlazy", "s"), { recursive: true });
    const file = path.join(root, ".unlazy", "s", "GATES.md");
    fs.writeFileSync(file, "a".repeat(3000));
    const script = path.join(root, "writer.js");
    fs.writeFileSync(script, WRITER);
    const child = Bun.spawn([process.execPath, script, file, "700"], { stdout: "ignore", stderr: "inherit" });
    let whole = 0;
    let refused = 0;
    const deadline = Date.now() + 600;
    while (Date.now() < deadline) {
      let text: string | null;
      try {
        text = check(file);
      } catch (e) {
        if (!(e instanceof ReadError) || e.code !== "UNSAFE") throw e;
        refused++;
        continue;
      }
      if (text === null) {
        refused++;
        continue;
      }
      // Whatever was accepted is a state the file really had: empty, or a prefix of one version
      // (a write in progress extends the file page by page). Never bytes of two versions.
      expect(
        isState(text) ? "a state the file had" : `not a state: ${text.length} bytes, ${new Set(text).size} letters`,
      ).toBe("a state the file had");
      whole++;
    }
    child.kill();
    return { whole, refused };
  }

  test("a read either returns one state the file had or is refused; it never mixes versions", () => {
    const seen = race((file) => readStable(file, opts(undefined, 1 << 20)).toString());
    expect(seen.whole + seen.refused).toBeGreaterThan(50);
  });

  test("a ScopeReader with the consistency pass skips the per-read lstat and gives the same guarantee", () => {
    const seen = race((file) => {
      const reader = new ScopeReader(path.resolve(file, "../../.."), "s", true);
      const text = reader.text("GATES.md");
      return reader.changed() === null ? text : null; // null: the caller would re-read or refuse
    });
    expect(seen.whole + seen.refused).toBeGreaterThan(50);
  });
});

describe("the consistency pass of a ScopeReader", () => {
  const scoped = () => {
    const root = tempDir();
    fs.mkdirSync(path.join(root, ".unlazy", "s"), { recursive: true });
    return { root, file: path.join(root, ".unlazy", "s", "GATES.md") };
  };
  const changedAfter = (root: string, file: string, change: (file: string) => void) => {
    const reader = new ScopeReader(root, "s", true);
    reader.text("GATES.md");
    change(file);
    return reader.changed();
  };

  test("an untouched file, or one rewritten in place with the same text, is unchanged; a rename over it, other text, a growth or a removal is a change", () => {
    const { root, file } = scoped();
    const reset = () => {
      fs.rmSync(file, { force: true });
      fs.writeFileSync(file, "- [ ] G1: one\n");
    };
    reset();
    expect(changedAfter(root, file, () => {})).toBeNull();
    reset();
    expect(changedAfter(root, file, (f) => fs.writeFileSync(f, "- [ ] G1: one\n"))).toBeNull();
    reset();
    // A rename over the name changes its folder, which the pass pins.
    expect(
      changedAfter(root, file, (f) => (fs.writeFileSync(f + ".new", "- [ ] G1: one\n"), fs.renameSync(f + ".new", f))),
    ).toBe("inputs");
    reset();
    expect(
      changedAfter(root, file, (f) => (fs.writeFileSync(f + ".new", "- [ ] G1: two\n"), fs.renameSync(f + ".new", f))),
    ).toBe("inputs");
    reset();
    expect(changedAfter(root, file, (f) => fs.appendFileSync(f, "more\n"))).toBe("inputs");
    reset();
    expect(changedAfter(root, file, (f) => fs.rmSync(f))).toBe("inputs");
    reset();
    expect(changedAfter(root, file, (f) => (fs.rmSync(f), fs.symlinkSync(path.join(root, "elsewhere"), f)))).toBe(
      "inputs",
    );
  });

  test("the read itself still refuses links and hard links", () => {
    const { root } = scoped();
    const dir = path.join(root, ".unlazy", "s");
    fs.writeFileSync(path.join(root, "victim"), "x");
    fs.symlinkSync(path.join(root, "victim"), path.join(dir, "link.md"));
    fs.linkSync(path.join(root, "victim"), path.join(dir, "hard.md"));
    for (const name of ["link.md", "hard.md"]) {
      const reader = new ScopeReader(root, "s", true);
      let code: string | null = null;
      try {
        reader.text(name);
      } catch (e) {
        code = (e as ReadError).code;
      }
      expect(code).toBe("UNSAFE");
    }
  });

  test("each file is read once: a second ask returns the recorded text", () => {
    const { root, file } = scoped();
    fs.writeFileSync(file, "- [ ] G1: one\n");
    const reader = new ScopeReader(root, "s", true);
    expect(reader.text("GATES.md")).toBe("- [ ] G1: one\n");
    fs.writeFileSync(file, "- [ ] G1: two\n");
    expect(reader.text("GATES.md")).toBe("- [ ] G1: one\n");
    expect(reader.entries.length).toBe(1);
    expect(reader.changed()).toBe("inputs");
  });
});

describe("scope text cache (the dashboard's plan side)", () => {
  /** A cache that counts the reads it is handed: a hit is served without one. */
  class CountingCache extends ScopeTextCache {
    reads = 0;
    override set(...args: Parameters<ScopeTextCache["set"]>): void {
      this.reads++;
      super.set(...args);
    }
  }
  function scope(): { root: string; dir: string } {
    const root = tempDir();
    const dir = path.join(root, ".unlazy", "s");
    fs.mkdirSync(path.join(dir, "gates"), { recursive: true });
    fs.writeFileSync(path.join(dir, "PLAN.md"), "plan one\n");
    fs.writeFileSync(path.join(dir, "gates", "leaf-1.md"), "leaf one\n");
    return { root, dir };
  }
  const both = (root: string, cache: ScopeTextCache, opts: { beforeConsistencyCheck?: () => void } = {}) =>
    readConsistent(
      root,
      "s",
      (i) => [i.text("PLAN.md"), i.text("gates/leaf-1.md")],
      (what) => [`changed: ${what}`],
      { ...opts, cache },
    );

  test("unchanged files are not read again; a rename write and an in-place write of the same size are", () => {
    const { root, dir } = scope();
    const cache = new CountingCache();
    expect(both(root, cache)).toEqual(["plan one\n", "leaf one\n"]);
    expect(cache.reads).toBe(2);
    expect(both(root, cache)).toEqual(["plan one\n", "leaf one\n"]);
    expect(cache.reads).toBe(2);
    writeAtomic(path.join(dir, "PLAN.md"), "plan two\n");
    expect(both(root, cache)).toEqual(["plan two\n", "leaf one\n"]);
    expect(cache.reads).toBe(3);
    // Same size, mtime put back: the ctime still moved.
    const leaf = path.join(dir, "gates", "leaf-1.md");
    const st = fs.statSync(leaf);
    fs.writeFileSync(leaf, "leaf 111\n");
    fs.utimesSync(leaf, st.atime, st.mtime);
    expect(both(root, cache)).toEqual(["plan two\n", "leaf 111\n"]);
    expect(cache.reads).toBe(4);
  });

  test("a file served from the cache is still proven unchanged by the consistency pass", () => {
    const { root, dir } = scope();
    const cache = new CountingCache();
    both(root, cache);
    const reads = cache.reads;
    const out = both(root, cache, {
      beforeConsistencyCheck: () => writeAtomic(path.join(dir, "gates", "leaf-1.md"), "leaf moved\n"),
    });
    expect(cache.reads).toBe(reads); // both texts came from the cache
    expect(out).toEqual(["changed: inputs"]);
    expect(both(root, cache)).toEqual(["plan one\n", "leaf moved\n"]);
  });

  test("a ledger's parse is handed back while its file is unchanged, and made again when it changed", () => {
    const { root, dir } = scope();
    const cache = new ScopeTextCache();
    const parse = () =>
      readConsistent(
        root,
        "s",
        (i) => i.ledger!("gates/leaf-1.md", i.text("gates/leaf-1.md")!, "leaf-1"),
        () => null,
        { cache },
      );
    const a = parse()!;
    expect(parse()).toBe(a);
    writeAtomic(path.join(dir, "gates", "leaf-1.md"), "- [ ] G1: one\n  EVIDENCE: pending\n");
    const b = parse()!;
    expect(b).not.toBe(a);
    expect(b.gates.map((g) => g.id)).toEqual(["G1"]);
    // Another text than the cached one (a caller's own) is parsed, never matched to the cache.
    expect(cache.ledger(path.join(dir, "gates", "leaf-1.md"), "- [ ] G2: two\n", "leaf-1").gates[0]!.id).toBe("G2");
    expect(parse()).toBe(b);
  });

  test("a deleted file is forgotten and read as missing; a link put in its place is refused, not served", () => {
    const { root, dir } = scope();
    const cache = new ScopeTextCache();
    both(root, cache);
    const leaf = path.join(dir, "gates", "leaf-1.md");
    fs.rmSync(leaf);
    expect(both(root, cache)).toEqual(["plan one\n", null]);
    fs.writeFileSync(path.join(root, "outside.md"), "leaf one\n");
    fs.symlinkSync(path.join(root, "outside.md"), leaf);
    expect(() => both(root, cache)).toThrow(ReadError);
  });
});
