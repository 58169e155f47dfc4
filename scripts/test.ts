// `npm test` (after the build): say once which real parts this machine lacks (their tests skip; see
// test/helpers/needs.ts) and how short the crash soaks run, then run every test file.
// A developer's run spreads the files over one Bun worker per core (`bun test --parallel`): most
// tests wait on the processes they start, so two workers on two cores roughly halve the wall time.
// The workers run each file in its own registry, so the skip lines are said here, once, and the
// workers are told not to repeat them (KBZ_TEST_TOLD). CI (KBZ_CI=1) runs the files one after
// another: it has the time, and every real part must be present there anyway.
// Extra arguments go to `bun test` (`npm test -- test/cli` runs one folder).
import { spawnSync } from "node:child_process";
import * as path from "node:path";
import { PARTS, missing, skipLine, type Part } from "../test/helpers/needs.ts";
import { soakLine } from "../test/helpers/soak.ts";

const REPO = path.join(import.meta.dir, "..");
const env = { ...process.env };
const told: string[] = [];
if (!env.KBZ_CI) {
  for (const part of Object.keys(PARTS) as Part[]) {
    if (missing(part) === "") continue;
    console.log(skipLine(part));
    told.push(part);
  }
  const soak = soakLine(env);
  if (soak) {
    console.log(soak);
    told.push("soak");
  }
}
env.KBZ_TEST_TOLD = told.join(",");
// Format and lint first (biome.jsonc: 120 columns, the recommended rules less the ones it names); a
// finding fails the run, but the tests still run so one report shows both. Skipped when the run
// names files or folders (a developer running one file).
const args = process.argv.slice(2);
let lint = 0;
if (args.length === 0) {
  const biome = spawnSync(
    path.join(REPO, "node_modules", ".bin", "biome"),
    ["ci", "--colors=off", "src", "test", "bench", "scripts", "build.ts"],
    {
      cwd: REPO,
      env,
      stdio: "inherit",
    },
  );
  lint = biome.status ?? 1;
  if (lint !== 0)
    console.log(
      "biome: format or lint findings above (fix with: npx biome check --write src test bench scripts build.ts)",
    );
}
const parallel = env.KBZ_CI ? [] : ["--parallel"];
const run = spawnSync("bun", ["test", "--timeout", "120000", ...parallel, ...args], {
  cwd: REPO,
  env,
  stdio: "inherit",
});
process.exit(run.status || lint || (run.status === null ? 1 : 0));
