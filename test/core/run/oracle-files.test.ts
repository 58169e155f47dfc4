// What a CHECK runs as its oracle (issue 27): the files, scripts and runners read from its text.
import { describe, expect, test } from "bun:test";
import { oracleRefs, tokenize } from "../../../src/core/run/oracle-files.ts";

const files = (cmd: string) =>
  oracleRefs(cmd).refs.flatMap((r) => (r.kind === "script" ? [`${r.manager}:${r.name}`] : [r.path]));

describe("oracleRefs", () => {
  test("interpreters name their script: node, bash, sh, python, python3, bun, deno run, tsx, ./x", () => {
    expect(files("node check.mjs")).toEqual(["check.mjs"]);
    expect(files("bash scripts/check.sh --fast")).toEqual(["scripts/check.sh"]);
    expect(files("sh -e ./oracle.sh")).toEqual(["oracle.sh"]);
    expect(files("python3 -u tests/run.py arg")).toEqual(["tests/run.py"]);
    expect(files("python -W ignore t.py")).toEqual(["t.py"]);
    expect(files("bun test/check.ts")).toEqual(["test/check.ts"]);
    expect(files("deno run --allow-read check.ts")).toEqual(["check.ts"]);
    expect(files("npx tsx check.ts")).toEqual(["check.ts"]);
    expect(files("./check")).toEqual(["check"]);
    expect(files("bin/check --quiet")).toEqual(["bin/check"]);
  });

  test("node's preloads are oracle files too (-r, --require=, --import)", () => {
    expect(files("node -r ./setup.cjs --import=./hook.mjs check.mjs")).toEqual(["setup.cjs", "hook.mjs", "check.mjs"]);
    expect(files("node -e 'console.log(1)'")).toEqual([]);
  });

  test("every command of a list, pipeline or subshell counts; cd moves the rest", () => {
    expect(files("cd app && node check.mjs | grep OK; (bash ../x.sh)")).toEqual(["app/check.mjs", "app/../x.sh"]);
    expect(files("FOO=1 env BAR=2 timeout 30 nice -n 5 node a.js && echo $(node b.js)")).toEqual(["a.js", "b.js"]);
    expect(files("node check.mjs < fixtures/in.txt > out.txt")).toEqual(["fixtures/in.txt", "check.mjs"]);
  });

  test("sh -c is read as a command, quotes as sh reads them", () => {
    expect(files(`bash -c "node 'my check.mjs'"`)).toEqual(["my check.mjs"]);
    expect(tokenize(`a "b c" 'd'e\\ f`)).toEqual([{ word: "a" }, { word: "b c" }, { word: "de f" }]);
  });

  test("package managers run package.json scripts", () => {
    expect(files("npm test")).toEqual(["npm:test"]);
    expect(files("npm run --silent lint")).toEqual(["npm:lint"]);
    expect(files("pnpm check")).toEqual(["pnpm:check"]);
    expect(files("pnpm install && pnpm run test")).toEqual(["pnpm:test"]);
    expect(files("yarn verify")).toEqual(["yarn:verify"]);
    expect(files("bun run check")).toEqual(["bun:check"]);
    expect(files("bun run check.ts")).toEqual(["check.ts"]);
    expect(files("npm ci")).toEqual([]);
  });

  test("test runners are named for lint", () => {
    expect(oracleRefs("npm test").runners).toEqual(["npm test"]);
    expect(oracleRefs("npx vitest run").runners).toEqual(["vitest"]);
    expect(oracleRefs("go test ./...").runners).toEqual(["go test"]);
    expect(oracleRefs("cargo test -q").runners).toEqual(["cargo test"]);
    expect(oracleRefs("python -m pytest -q").runners).toEqual(["python -m pytest"]);
    expect(oracleRefs("bun test").runners).toEqual(["bun test"]);
    expect(oracleRefs("node_modules/.bin/jest").runners).toEqual(["jest"]);
    expect(oracleRefs("node check.mjs").runners).toEqual([]);
  });
});
