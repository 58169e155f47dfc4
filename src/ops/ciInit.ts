// `kbz ci init` (docs/formats.md#ci): a GitHub Actions workflow that runs `kbz ci` on every pull
// request, written to .github/workflows/kbz.yml, and the GitLab CI job that does the same, printed.
// The allowed signers are read from the pull request's base (`--signers-from`), so a pull request
// that adds its own key to .kbz/allowed_signers does not sign its own gates.
import * as fs from "node:fs";
import * as path from "node:path";
import { KbzError } from "../core/errors.ts";
import { writeAtomic } from "../io/fs.ts";
import { kbz, placeholder as ph } from "../core/text/command.ts";

export const WORKFLOW_PATH = ".github/workflows/kbz.yml";

export const GITHUB_WORKFLOW = `# kbz gates, judged from the signed records (docs/formats.md#ci)
name: kbz gates
on: pull_request
permissions: { contents: read }
jobs:
  gates:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
        with: { fetch-depth: 0 }
      - run: npm install -g kbz && sudo apt-get install -y bubblewrap
      - run: ${kbz("ci", { "signers-from": ph('"origin/${{ github.base_ref }}"'), junit: "kbz-junit.xml" })}
      - uses: actions/upload-artifact@v4
        if: always()
        with: { name: kbz-junit, path: kbz-junit.xml }
`;

export const GITLAB_JOB = `kbz-gates:
  image: node:20
  rules: [{ if: $CI_PIPELINE_SOURCE == "merge_request_event" }]
  script:
    - apt-get update && apt-get install -y bubblewrap openssh-client && npm install -g kbz
    - git fetch origin "$CI_MERGE_REQUEST_TARGET_BRANCH_NAME"
    - ${kbz("ci", { "signers-from": ph('"origin/$CI_MERGE_REQUEST_TARGET_BRANCH_NAME"'), junit: "kbz-junit.xml" })}
  artifacts: { when: always, reports: { junit: kbz-junit.xml } }
`;

/** Write the GitHub workflow under `root` (refusing to replace a different one unless `force`). */
export function writeWorkflow(root: string, force: boolean): { file: string; status: "written" | "unchanged" } {
  const file = path.join(root, WORKFLOW_PATH);
  let current: string | null = null;
  try {
    current = fs.readFileSync(file, "utf8");
  } catch {}
  if (current === GITHUB_WORKFLOW) return { file: WORKFLOW_PATH, status: "unchanged" };
  if (current !== null && !force)
    throw new KbzError("a different workflow is already there", {
      kind: "input",
      code: "exists",
      file: WORKFLOW_PATH,
      hint: `pass --force to replace it, or merge the ${kbz("ci")} step into it by hand`,
    });
  fs.mkdirSync(path.dirname(file), { recursive: true });
  writeAtomic(file, GITHUB_WORKFLOW, { root });
  return { file: WORKFLOW_PATH, status: "written" };
}
