// `kbz check --probe` and `kbz lint --probe`: run the vacuity probe (core/check/probe.ts) and
// print one line per passed gate, then a verdict; --json prints the one envelope.
import { DEFAULT_TIMEOUT_S, probeGates, probeLine, type ProbeResult } from "../ops/check.ts";
import { envelope, report, type ExitCode } from "./envelope.ts";
import { out } from "./output.ts";
import { personLine } from "../core/text/person.ts";
import { relativeTo } from "./person.ts";

export interface ProbeArgs {
  root: string;
  files: string[];
  scope: string | null;
  approve: boolean;
  timeoutS?: number;
  shell?: string;
  cwd?: string;
  asJson: boolean;
}

const count = (res: ProbeResult, v: string) => res.items.filter((i) => i.verdict === v).length;

export function probeVerdict(res: ProbeResult): string {
  const count = (v: string) => res.items.filter((i) => i.verdict === v).length;
  const vacuous = count("vacuous");
  const pending = count("approval-required");
  const damaged = count("damaged");
  const notProbed = count("nothing-hidden") + count("no-view") + count("not-run");
  const parts = [`${count("observes")} observe`, `${notProbed} not probed`];
  if (pending) parts.push(`${pending} need approval`);
  if (damaged > 0) return `DAMAGED: ${damaged} (${parts.join(", ")})`;
  if (vacuous > 0) return `VACUOUS: ${vacuous} (${parts.join(", ")})`;
  // NOT PROBED is never OK (issue 27): OK means every probed gate observes its deliverable.
  return pending > 0 || notProbed > 0 ? `PROBE INCOMPLETE (${parts.join(", ")})` : `PROBE OK (${parts.join(", ")})`;
}

export async function runProbeVerb(a: ProbeArgs): Promise<ExitCode> {
  const res = await probeGates({
    root: a.root,
    files: a.files,
    scope: a.scope,
    approve: a.approve,
    timeoutS: a.timeoutS ?? DEFAULT_TIMEOUT_S,
    shell: a.shell,
    cwd: a.cwd,
    env: process.env,
  });
  const root = res.snapshot.target.root;
  const items = res.items.map((i) => ({
    qid: i.qid,
    verdict: i.verdict,
    hiddenFrom: i.hiddenFrom,
    hidden: i.hidden.map((h) => (h.startsWith(root + "/") ? h.slice(root.length + 1) : h)),
    ...(i.recorded ? { approvalRecorded: i.recorded } : {}),
    ...(i.damaged && i.damaged.length > 0
      ? { damaged: i.damaged.map((h) => (h.startsWith(root + "/") ? h.slice(root.length + 1) : h)) }
      : {}),
    ...(i.why ? { why: i.why } : {}),
  }));
  const verdict = probeVerdict(res);
  return report(a.asJson, envelope(verdict.split(/[: ]/)[0]!.toLowerCase(), res.exit, { probes: items }), () => {
    for (const i of res.items) out(probeLine(i, root));
    out(verdict);
    const person = personLine({
      approvals: [],
      probes: count(res, "approval-required"),
      probeTarget: a.scope !== null ? ["--scope", a.scope] : a.files.map((f) => relativeTo(root, f)),
      signoffs: [],
    });
    if (person !== null) out(person);
  });
}
