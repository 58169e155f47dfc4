// Every target Bun compiles for builds (issue 33): the full `npm run dist --reproducible` makes one
// package per target whose binary `file` recognises as that format and architecture, and the Linux
// binaries of two builds of the same commit are byte-identical (dist.ts fails otherwise).
// Cross-compiling needs each target's Bun runtime (~50 MB each from the npm registry, cached in
// node_modules/.cache/kbz-dist afterwards), so it runs in CI (KBZ_CI=1) or with KBZ_DIST_ALL=1.
import { afterAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { packageName, TARGETS } from "../../scripts/dist/targets.ts";
import { npm, npmPath } from "../../scripts/dist/npm.ts";
import { REPO, tempDir } from "../helpers/kbz.ts";
import pkg from "../../package.json" with { type: "json" };

const wanted = !!(process.env.KBZ_CI || process.env.KBZ_DIST_ALL);
const hasFile = spawnSync("file", ["--version"]).status === 0;
const NPM = npmPath();
if (wanted && (!hasFile || !NPM))
  throw new Error(
    `the every-target build must run in CI: it needs \`file\` (${hasFile ? "ok" : "missing"}) and npm (${NPM ?? "missing"})`,
  );
if (!wanted)
  console.log("skip: test/dist/targets.test.ts cross-compiles every target: set KBZ_DIST_ALL=1 (CI sets KBZ_CI=1)");

describe.skipIf(!wanted)("npm run dist: every target", () => {
  let out = "";
  afterAll(() => {
    if (out) fs.rmSync(out, { recursive: true, force: true });
  });

  test("one package per target; `file` names each binary's format and architecture; Linux builds are reproducible", () => {
    out = tempDir("kbz-dist-all-");
    const log = npm(["run", "dist", "--", "--out", out, "--reproducible"], REPO);
    for (const t of TARGETS) {
      const binary = path.join(out, packageName(t), "bin", t.exe);
      const type = spawnSync("file", ["-b", binary], { encoding: "utf8" }).stdout.trim();
      expect({ target: t.name, type, ok: t.file.test(type) }).toEqual({ target: t.name, type, ok: true });
      expect(fs.existsSync(path.join(out, `${packageName(t)}-${pkg.version}.tgz`))).toBe(true);
      const manifest = JSON.parse(fs.readFileSync(path.join(out, packageName(t), "package.json"), "utf8"));
      expect(manifest).toMatchObject({ name: packageName(t), version: pkg.version, os: [t.os], cpu: [t.cpu] });
      if (t.os === "linux") expect(log).toContain(`${packageName(t)}: a second build is byte-identical`);
    }
    // The sizes and build times, for the record (the CI log keeps them).
    console.log(log);
  }, 1_800_000);
});
