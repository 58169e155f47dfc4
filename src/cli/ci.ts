// kbz ci [init]: every gate judged from the signed records the repository holds (ops/ci.ts); one
// line per gate, a Markdown summary ($GITHUB_STEP_SUMMARY when set, or --summary FILE), a JUnit
// XML report (--junit FILE). `kbz ci init` writes the GitHub Actions workflow and prints the
// GitLab CI job (ops/ciInit.ts).
import { parseInteger } from "../core/text/integer.ts";
import * as fs from "node:fs";
import * as path from "node:path";
import { UsageError } from "../core/errors.ts";
import { ciJunit, ciMarkdown, runCi } from "../ops/ci.ts";
import { GITLAB_JOB, writeWorkflow } from "../ops/ciInit.ts";
import type { ExitCode, Verb } from "./index.ts";
import { ledgerFiles, requestedScope, rootFor } from "./context.ts";
import { targetOptions } from "./options.ts";
import { envelope, report } from "./envelope.ts";
import { out } from "./output.ts";
import { kbz } from "../core/text/command.ts";

interface CiArgs {
  action?: string;
  ledger?: string[];
  scope?: string;
  root?: string;
  json?: boolean;
  junit?: string;
  summary?: string;
  "allowed-signers"?: string;
  "signers-from"?: string;
  sandbox?: boolean;
  jobs?: string;
  force?: boolean;
}

async function init(argv: CiArgs): Promise<ExitCode> {
  const root = rootFor(argv as never);
  const w = writeWorkflow(root, !!argv.force);
  return report(!!argv.json, envelope(w.status, 0, { file: w.file, gitlab: GITLAB_JOB }), () => {
    out(
      w.status === "written"
        ? `wrote ${w.file} (GitHub Actions: ${kbz("ci")} on every pull request)`
        : `${w.file} is already kbz's workflow`,
    );
    out("GitLab CI: add this job to .gitlab-ci.yml");
    for (const l of GITLAB_JOB.trimEnd().split("\n")) out(`  ${l}`);
  });
}

async function ci(argv: CiArgs): Promise<ExitCode> {
  if (argv.action === "init") return init(argv);
  if (argv.action !== undefined)
    throw new UsageError(`${kbz("ci")} has one action, init (not ${JSON.stringify(argv.action)})`);
  const jobs = argv.jobs === undefined ? 4 : parseInteger(argv.jobs, 1, 64);
  if (jobs === null) throw new UsageError(`--jobs must be an integer 1..64 (got ${JSON.stringify(String(argv.jobs))})`);
  const files = ledgerFiles(argv as never);
  const root = rootFor(argv as never);
  const r = await runCi({
    root,
    files,
    scope: files.length > 0 ? null : requestedScope(argv as never),
    env: process.env,
    allowedSigners: argv["allowed-signers"],
    signersFrom: argv["signers-from"],
    noSandbox: argv.sandbox === false,
    jobs,
  });
  const md = ciMarkdown(r);
  const summaryFile = argv.summary ?? process.env.GITHUB_STEP_SUMMARY;
  if (summaryFile) fs.appendFileSync(path.resolve(summaryFile), md);
  if (argv.junit) fs.writeFileSync(path.resolve(argv.junit), ciJunit(r));
  const met = r.gates.filter((g) => g.ok).length;
  const verdict = r.exit === 0 ? "all-met" : "not-met";
  return report(
    !!argv.json,
    envelope(verdict, r.exit, { gates: r.gates, allowedSigners: r.allowed, sandboxed: r.sandboxed }),
    () => {
      for (const g of r.gates) out(`${g.verdict.padEnd(9)} ${g.qid}: ${g.reason}`);
      out(
        r.exit === 0
          ? `ALL MET against signed oracles (${met} gates)`
          : `NOT MET: ${r.gates.length - met} of ${r.gates.length} gates`,
      );
    },
  );
}

export const verb: Verb = {
  command: "ci [action] [ledger..]",
  describe: "CI: judge every gate from the signed records in the repository; init writes the workflow",
  builder: (y) =>
    targetOptions(y)
      .positional("action", { type: "string", describe: "init: write the GitHub workflow, print the GitLab job" })
      .option("junit", { type: "string", requiresArg: true, describe: "write a JUnit XML report" })
      .option("summary", {
        type: "string",
        requiresArg: true,
        describe: "append the Markdown summary (default: $GITHUB_STEP_SUMMARY)",
      })
      .option("allowed-signers", {
        type: "string",
        requiresArg: true,
        describe: "default: gpg.ssh.allowedSignersFile, else .kbz/allowed_signers",
      })
      .option("signers-from", {
        type: "string",
        requiresArg: true,
        describe: "read .kbz/allowed_signers at this revision (the PR's base)",
      })
      .option("sandbox", { type: "boolean", default: true, describe: "run CHECKs in bubblewrap where it works" })
      .option("jobs", { type: "string", requiresArg: true, describe: "CHECKs at once (default 4)" })
      .option("force", { type: "boolean", describe: "init: replace a different workflow" })
      .epilog(
        "A runnable gate needs a signed approval (.kbz/signed/) matching the checkout, and is run; a manual gate a " +
          "matching signed sign-off. [x] and EVIDENCE are never trusted.\n\n" +
          "Exit: 0 every gate met; 1 not; 2 usage or a malformed record.",
      ),
  handler: (argv) => ci(argv as CiArgs),
};
