// docs/commands.md and `kbz --help` name the same verbs, and the README stays a front door:
// at most 150 lines, no issue numbers or history, every docs/ link resolves.
import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { kbz } from "../helpers/kbz.ts";

const ROOT = path.join(import.meta.dir, "..", "..");
const read = (p: string) => fs.readFileSync(path.join(ROOT, p), "utf8");

function helpVerbs(help: string): string[] {
  const verbs = new Set<string>();
  for (const m of help.matchAll(/^ {2}kbz ([a-z]+)/gm)) verbs.add(m[1]!);
  return [...verbs].sort();
}

function docVerbs(doc: string): string[] {
  const verbs = new Set<string>();
  for (const m of doc.matchAll(/^\| `kbz ([a-z]+)/gm)) verbs.add(m[1]!);
  return [...verbs].sort();
}

describe("docs/commands.md against --help", () => {
  test("every verb in `kbz --help` has a row in docs/commands.md, and no row names a verb --help lacks", () => {
    // yargs prints help itself: the binary's output is what a user reads.
    const r = kbz(["--help"]);
    expect(r.code).toBe(0);
    const fromHelp = helpVerbs(r.stdout);
    expect(fromHelp.length).toBeGreaterThan(10);
    expect(docVerbs(read("docs/commands.md"))).toEqual(fromHelp);
  });
});

describe("README as a front door", () => {
  const readme = read("README.md");
  test("is at most 180 lines", () => {
    // 180 since issue 41: the "In CI" section shows the GitHub workflow and the GitLab job whole.
    expect(readme.split("\n").length).toBeLessThanOrEqual(181);
  });
  test("quick start is two commands", () => {
    const quick = readme.split("## Quick start")[1]!.split("## ")[0]!;
    const block = quick.split("```sh\n")[1]!.split("```")[0]!;
    const lines = block
      .trim()
      .split("\n")
      .map((l) => l.replace(/#.*$/, "").trim());
    expect(lines).toEqual(["npm install && npm run setup", "kbz"]);
  });
  // Issue 44 item 1: `npm install -g kbz` answered 404 while the README offered it as the install.
  test("issue 44 item 1: the npm line says it needs a release, and the release workflow that makes one exists", () => {
    const install = readme.split("## Install")[1]!.split("\n## ")[0]!;
    const npmItem = install.split("\n- ").find((item) => item.includes("npm install -g kbz"))!;
    expect(npmItem).toMatch(/only once a release is published/);
    expect(npmItem).toContain("(.github/workflows/release.yml)");
    expect(read(".github/workflows/release.yml")).toContain("npm publish");
    expect(JSON.parse(read("package.json")).private).toBe(true); // why the repository itself is not on npm
    expect(install.split("\n- ")[1]).toStartWith("**From a clone** (works today): the quick start above.");
    expect(read("docs/install.md")).toContain("## Releasing");
  });
  // Issue 44 item 9: "unlazy 2.1", "Kill_bezzangyi" and "oracle" came before they were explained.
  test("issue 44 item 9: the first screen speaks to a newcomer: what kbz does, the install, the five-minute path; history after", () => {
    const heads = [...readme.matchAll(/^## (.*)$/gm)].map((m) => m[1]);
    expect(heads.slice(0, 3)).toEqual(["Quick start", "Your repository in five minutes", "Install"]);
    const firstScreen = readme.split("## Your repository in five minutes")[0]!;
    expect(firstScreen.split("\n").length).toBeLessThanOrEqual(30);
    for (const word of ["unlazy", "Kill_bezzangyi", "oracle"])
      expect({ word, at: firstScreen.indexOf(word) }).toEqual({ word, at: -1 });
    // Each such word first appears where it is explained, or after.
    const words = readme.indexOf("## Words");
    expect(readme.indexOf("oracle")).toBe(readme.indexOf("**oracle**") + 2);
    expect(readme.indexOf("Kill_bezzangyi")).toBeGreaterThan(words);
    expect(readme.search(/\bunlazy\b(?!\/)/)).toBeGreaterThan(words);
  });
  test("user docs carry no issue numbers", () => {
    for (const f of [
      "README.md",
      ...fs
        .readdirSync(path.join(ROOT, "docs"))
        .filter((f) => f.endsWith(".md"))
        .map((f) => `docs/${f}`),
    ]) {
      // ARCHITECTURE.md is the developers' picture; formats.md is written by every change of a
      // format at once and cleaned by hand (a test here would fail CI on another engineer's landing).
      if (f === "docs/ARCHITECTURE.md" || f === "docs/formats.md") continue;
      expect({ f, hits: read(f).match(/\bissue #?\d+/gi) ?? [] }).toEqual({ f, hits: [] });
    }
  });
  test("every relative link resolves", () => {
    for (const m of readme.matchAll(/\]\(([^)#:]+)(#[^)]*)?\)/g)) {
      expect({ link: m[1], exists: fs.existsSync(path.join(ROOT, m[1]!)) }).toEqual({ link: m[1], exists: true });
    }
  });
  test("defines each of the words it uses before the reference pages", () => {
    const words = readme.split("## Words")[1]!.split("\n## ")[0]!;
    for (const w of ["gate", "oracle", "scope", "leaf", "wave", "lease", "Kill_bezzangyi"])
      expect(words).toContain(`**${w}**`);
  });
});
