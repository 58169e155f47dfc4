// .kbz/settings.json has one reader (io/settings.ts); its entries are checked by their owners.
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { FileProblemsError } from "../../src/core/errors.ts";
import { readRepoSettings } from "../../src/io/check/settings.ts";
import { readSettings } from "../../src/io/settings.ts";
import { resolveCoordinator } from "../../src/io/coordination/config.ts";
import { tempDir, writeTree } from "../helpers/kbz.ts";

function problem(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(FileProblemsError);
    const p = (e as FileProblemsError).problems[0]!;
    return `${p.file}:${p.line}: ${p.message}`;
  }
  throw new Error("no problem reported");
}

function repo(text: string): string {
  const root = tempDir();
  writeTree(root, { ".kbz/settings.json": text });
  return root;
}

describe("kbz settings", () => {
  test("no file: no settings, the defaults", () => {
    const root = tempDir();
    expect(readSettings(root)).toBeNull();
    expect(readRepoSettings(root)).toEqual({
      sandbox: false,
      writable: [],
      readable: [],
      file: path.join(root, ".kbz", "settings.json"),
    });
    expect(resolveCoordinator(root, undefined, {})).toEqual({ kind: "files" });
  });

  test("both owners read the same file", () => {
    const root = repo('{"sandbox": true, "writable": ["build"], "coordinator": "files"}');
    expect(readRepoSettings(root)).toMatchObject({ sandbox: true, writable: ["build"] });
    expect(resolveCoordinator(root, undefined, {})).toEqual({ kind: "files" });
  });

  test("a bad file is one .kbz/settings.json:1 error for every reader of it", () => {
    const shape = 'expected an object of "sandbox", "writable", "readable", "coordinator"';
    for (const [text, message] of [
      ["{", `not valid JSON; ${shape}`],
      ["[]", `must be a JSON object; ${shape}`],
      ['{"sandbx": true}', `unknown key "sandbx"; ${shape}`],
    ] as const) {
      const root = repo(text);
      expect(problem(() => readRepoSettings(root))).toBe(`.kbz/settings.json:1: ${message}`);
      expect(problem(() => resolveCoordinator(root, undefined, {}))).toBe(`.kbz/settings.json:1: ${message}`);
    }
  });

  test("each entry is checked by its owner, in the same form", () => {
    expect(problem(() => readRepoSettings(repo('{"sandbox": "yes"}')))).toBe(
      '.kbz/settings.json:1: "sandbox" must be true or false; expected {"sandbox": true, "writable": ["path", ...]}',
    );
    expect(problem(() => resolveCoordinator(repo('{"coordinator": 5}'), undefined, {}))).toMatch(
      /^\.kbz\/settings\.json:1: "coordinator" must be a URL or an object; expected /,
    );
  });

  test("a link, a FIFO or a folder is refused without blocking", () => {
    const root = tempDir();
    writeTree(root, { "elsewhere.json": "{}" });
    fs.mkdirSync(path.join(root, ".kbz"));
    fs.symlinkSync(path.join(root, "elsewhere.json"), path.join(root, ".kbz", "settings.json"));
    expect(problem(() => readSettings(root))).toMatch(/^\.kbz\/settings\.json:1: /);
    fs.unlinkSync(path.join(root, ".kbz", "settings.json"));
    expect(spawnSync("mkfifo", [path.join(root, ".kbz", "settings.json")]).status).toBe(0);
    expect(problem(() => readSettings(root))).toMatch(/^\.kbz\/settings\.json:1: /);
  });
});
