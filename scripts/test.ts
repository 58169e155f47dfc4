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
const parallel = env.KBZ_CI ? [] : ["--parallel"];
const run = spawnSync("bun", ["test", "--timeout", "120000", ...parallel, ...process.argv.slice(2)], {
  cwd: REPO,
  env,
  stdio: "inherit",
});
process.exit(run.status ?? 1);
