// The README's "In CI" section (issue 41): its two YAML blocks are exactly what `kbz ci init`
// writes (the GitHub Actions workflow) and prints (the GitLab CI job), and both parse as YAML with
// the keys GitHub and GitLab document. Fails on 571b8e3, which has no `kbz ci`.
import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { BIN, REPO, kbz, tempDir, writeTree } from "../helpers/kbz.ts";

function readmeBlocks(): string[] {
  const text = fs.readFileSync(path.join(REPO, "README.md"), "utf8");
  const start = text.indexOf("## In CI\n");
  expect(start).toBeGreaterThan(0);
  const section = text.slice(start, text.indexOf("\n## ", start + 5));
  return [...section.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

describe("README: In CI", () => {
  test("the README's workflow is what kbz ci init writes, and its GitLab job what it prints; both are YAML with the documented keys", () => {
    const dir = tempDir();
    writeTree(dir, { "GATES.md": "- [ ] M1: reviewed\n" });
    const r = kbz(["ci", "init"], { cwd: dir });
    expect(r.code).toBe(0);
    const written = fs.readFileSync(path.join(dir, ".github/workflows/kbz.yml"), "utf8");
    const [github, gitlab] = readmeBlocks();
    expect(github).toBe(written);
    const printed =
      r.stdout
        .split("\n")
        .filter((l) => l.startsWith("  "))
        .map((l) => l.slice(2))
        .join("\n") + "\n";
    expect(printed).toBe(gitlab!);
    // GitHub's workflow syntax: name, on, permissions, jobs.<id>.runs-on and steps (uses/with/run/name/if).
    const wf = Bun.YAML.parse(written) as any;
    expect(Object.keys(wf)).toEqual(["name", "on", "permissions", "jobs"]);
    expect(wf.on).toBe("pull_request");
    expect(wf.permissions).toEqual({ contents: "read" });
    const job = wf.jobs.gates;
    expect(job["runs-on"]).toBe("ubuntu-latest");
    const stepKeys = new Set(["name", "uses", "with", "run", "if"]);
    for (const step of job.steps) for (const k of Object.keys(step)) expect(stepKeys.has(k)).toBe(true);
    expect(
      job.steps.some(
        (s: any) => s.run === 'kbz ci --signers-from "origin/${{ github.base_ref }}" --junit kbz-junit.xml',
      ),
    ).toBe(true);
    expect(job.steps[0].uses).toMatch(/^actions\/checkout@v\d+$/);
    expect(job.steps[0].with["fetch-depth"]).toBe(0);
    // GitLab: a job with image, rules, script and a JUnit report artifact.
    const gl = Bun.YAML.parse(gitlab!) as any;
    const j = gl["kbz-gates"];
    expect(Object.keys(j).sort()).toEqual(["artifacts", "image", "rules", "script"]);
    expect(j.rules).toEqual([{ if: '$CI_PIPELINE_SOURCE == "merge_request_event"' }]);
    expect(j.script.some((l: string) => l.startsWith("kbz ci --signers-from"))).toBe(true);
    expect(j.artifacts.reports.junit).toBe("kbz-junit.xml");
    // A second init leaves it; a different workflow is refused without --force.
    expect(kbz(["ci", "init"], { cwd: dir }).stdout).toContain("is already kbz's workflow");
    fs.writeFileSync(path.join(dir, ".github/workflows/kbz.yml"), "name: mine\n");
    const again = kbz(["ci", "init"], { cwd: dir });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(".github/workflows/kbz.yml:1: a different workflow is already there");
    expect(BIN).toBeTruthy();
  });
});
