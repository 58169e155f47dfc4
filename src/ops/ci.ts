// `kbz ci` (docs/formats.md#ci): every gate judged from what the repository holds, in a clean
// checkout, trusting nothing the agent writes: no `[x]`, no EVIDENCE line, no store on anyone's
// machine. A runnable gate needs a signed approval whose oracle matches the checkout, and is run
// (in bubblewrap where it can build a sandbox); a manual gate needs a signed sign-off whose reviewed
// INPUTS match. Signatures are checked by ssh-keygen against the allowed signers
// (io/sign/ssh.ts). The verdict: one line per gate, a Markdown summary, a JUnit XML report.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { FileProblemsError, KbzError } from "../core/errors.ts";
import { isRunnable } from "../core/ledger/model.ts";
import { runRolling } from "../core/check/pool.ts";
import { DEFAULT_TIMEOUT_S, runSettings } from "./checkRun.ts";
import { baseDir, gateCwd, oracleFor, realCwd, sandboxFor } from "../io/check/plan.ts";
import { digestInputs } from "../io/inputs/records.ts";
import { checkEnvironment } from "../io/oracle/env.ts";
import { snapshotForRequest, type TargetRequest } from "./snapshot.ts";
import { executeCheck } from "../io/run/execute.ts";
import { bwrapUsable, resolveBwrap, sandboxProfile } from "../io/run/sandbox.ts";
import { checkRecord, portableOracle, type ToVerify } from "../io/sign/records.ts";
import { allowedSignersFile, checkAllowedSigners, sshKeygen, sshVerify } from "../io/sign/ssh.ts";
import { gitInert } from "../io/git.ts";
import { kbz } from "../core/text/command.ts";

type Env = Record<string, string | undefined>;

export interface CiRequest extends TargetRequest {
  env: Env;
  /** An allowed-signers file named on the command line. */
  allowedSigners?: string;
  /** Read the allowed signers from this git revision (the pull request's base), not the checkout. */
  signersFrom?: string;
  /** Run without bubblewrap even where it works. */
  noSandbox?: boolean;
  jobs: number;
}

export interface CiGate {
  qid: string;
  file: string;
  gate: string;
  kind: "runnable" | "manual";
  ok: boolean;
  /** PASS, FAIL, UNSIGNED, CHANGED, ABANDONED */
  verdict: "PASS" | "FAIL" | "UNSIGNED" | "CHANGED" | "ABANDONED";
  reason: string;
  signer: string | null;
  durationMs: number;
}

export interface CiResult {
  root: string;
  gates: CiGate[];
  allowed: string | null;
  sandboxed: boolean;
  exit: 0 | 1;
}

function verdictOf(reason: string): CiGate["verdict"] {
  return reason.startsWith("changed since signed") || reason.includes("copied from another gate")
    ? "CHANGED"
    : "UNSIGNED";
}

/** The allowed-signers file to verify against, checked line by line (a bad line is an error at its line). */
function allowedFor(req: CiRequest, root: string, tmp: string): string | null {
  if (req.signersFrom) {
    const text = gitInert(root, ["show", `${req.signersFrom}:.kbz/allowed_signers`]);
    if (text === null)
      throw new KbzError(`cannot read .kbz/allowed_signers at ${req.signersFrom}`, {
        kind: "input",
        code: "signers-from",
        hint: "fetch the base revision first (git fetch origin <base>), or name a file with --allowed-signers",
      });
    checkAllowedSigners(text, `${req.signersFrom}:.kbz/allowed_signers`);
    const f = path.join(tmp, "allowed_signers");
    fs.writeFileSync(f, text, { mode: 0o600 });
    return f;
  }
  const found = allowedSignersFile(root, req.env, req.allowedSigners);
  if (!found) return null;
  let text: string;
  try {
    text = fs.readFileSync(found.file, "utf8");
  } catch (e) {
    throw new KbzError(
      `cannot read the allowed signers: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      {
        kind: "input",
        code: "allowed-signers",
        file: found.file,
        hint: "commit .kbz/allowed_signers, or pass --allowed-signers FILE",
      },
    );
  }
  checkAllowedSigners(
    text,
    path.relative(root, found.file).startsWith("..") ? found.file : path.relative(root, found.file),
  );
  return found.file;
}

export async function runCi(req: CiRequest): Promise<CiResult> {
  const snap = snapshotForRequest(req);
  if (snap.problems.length > 0) throw new FileProblemsError(snap.problems);
  const root = snap.target.root;
  if (!sshKeygen(req.env))
    throw new KbzError("ssh-keygen is not installed: signatures are verified with it", {
      kind: "infrastructure",
      code: "signing",
      hint: "install OpenSSH's client (apt-get install openssh-client)",
    });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "kbz-ci-"));
  try {
    const allowed = allowedFor(req, root, tmp);
    const settings = runSettings({ env: req.env, timeoutS: DEFAULT_TIMEOUT_S }, root);
    const sandboxed = !req.noSandbox && bwrapUsable(req.env).ok;
    const ledgers = new Map(snap.ledgers.map((l) => [l.file, l.ledger]));
    type Job = { view: (typeof snap.gates)[number]; run: () => Promise<CiGate> };
    const jobs: Job[] = [];
    for (const v of snap.gates) {
      const base: Omit<CiGate, "ok" | "verdict" | "reason" | "signer" | "durationMs"> = {
        qid: v.qid,
        file: path.relative(root, v.file),
        gate: v.gate.id,
        kind: isRunnable(v.gate) ? "runnable" : "manual",
      };
      const gate = (
        ok: boolean,
        verdict: CiGate["verdict"],
        reason: string,
        signer: string | null = null,
        durationMs = 0,
      ): CiGate => ({ ...base, ok, verdict, reason, signer, durationMs });
      if (v.state === "abandoned") {
        jobs.push({ view: v, run: async () => gate(true, "ABANDONED", "abandoned in the ledger (ABANDON line)") });
        continue;
      }
      const dir = baseDir(snap, v.file, settings);
      let verify: ToVerify | null = null;
      let changes: string[] = [];
      let runIt: ((signedTimeout: number) => Promise<{ ok: boolean; reason: string; ms: number }>) | null = null;
      let problem: string | null = null;
      if (isRunnable(v.gate)) {
        const oracle = oracleFor(
          v.file,
          dir,
          v.gate,
          settings,
          sandboxFor(settings, v.file, ledgers.get(v.file)?.sandbox ?? null),
        );
        const c = checkRecord(root, v.file, v.gate, { oracle: portableOracle(root, v.gate, oracle) });
        if (!c.ok) problem = c.reason;
        else {
          verify = c.verify;
          changes = c.changes;
          runIt = async (timeoutMs) => {
            const profile =
              oracle.sandbox ??
              (sandboxed ? sandboxProfile(resolveBwrap(req.env), root, [], req.env.HOME || "/root", req.env) : null);
            const out = await executeCheck({
              shell: settings.shell,
              check: v.gate.check!,
              expect: { text: v.gate.expect!, regex: v.gate.expectRegex },
              cwd: oracle.cwd,
              env: checkEnvironment(req.env, v.gate.env),
              timeoutMs,
              sandbox: profile,
            });
            const how = out.ok
              ? `ran${profile ? " sandboxed" : ""}: exit 0, EXPECT matched`
              : `ran${profile ? " sandboxed" : ""}: ${out.error ?? (out.matched ? "failed" : "EXPECT did not match")}${out.summary ? ` (${out.summary.slice(0, 200)})` : ""}`;
            return { ok: out.ok, reason: how, ms: out.durationMs };
          };
        }
      } else {
        const cwd = realCwd(gateCwd(dir, v.gate));
        const inputs = v.gate.inputs ? digestInputs(root, cwd, v.gate.inputs).files : null;
        const c = checkRecord(root, v.file, v.gate, { inputs });
        if (!c.ok) problem = c.reason;
        else {
          verify = c.verify;
          changes = c.changes;
        }
      }
      if (problem !== null) {
        const why = v.gate.checked ? `${problem} (the ledger's [x] is not trusted)` : problem;
        jobs.push({ view: v, run: async () => gate(false, verdictOf(problem!), why) });
        continue;
      }
      const toVerify = verify!;
      const changed =
        changes.length > 0
          ? `changed since signed: ${changes.join("; ")}${v.gate.checked ? " (the ledger's [x] is not trusted)" : ""}`
          : null;
      const timeout = runIt ? readTimeout(toVerify) : 0;
      jobs.push({
        view: v,
        run: async () => {
          if (!allowed)
            return gate(
              false,
              "UNSIGNED",
              "no allowed signers: commit .kbz/allowed_signers or set gpg.ssh.allowedSignersFile",
              toVerify.signer,
            );
          const s = await sshVerify(toVerify.message, toVerify.signature, toVerify.signer, allowed, tmp, req.env);
          if (!s.ok) return gate(false, "UNSIGNED", `${toVerify.rel}: ${s.reason}`, toVerify.signer);
          if (changed !== null) return gate(false, "CHANGED", changed, s.principal);
          if (!runIt) return gate(true, "PASS", `signed off by ${s.principal}`, s.principal);
          const r = await runIt(timeout);
          return gate(r.ok, r.ok ? "PASS" : "FAIL", `approved by ${s.principal}; ${r.reason}`, s.principal, r.ms);
        },
      });
    }
    const gates = await runRolling(jobs, req.jobs, (j) => j.run());
    return { root, gates, allowed, sandboxed, exit: gates.every((g) => g.ok) && gates.length > 0 ? 0 : 1 };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** The CHECK runs with the timeout the person approved. */
function readTimeout(v: ToVerify): number {
  const m = /^timeout-ms: (\d+)$/m.exec(v.message);
  return m ? Number(m[1]) : DEFAULT_TIMEOUT_S * 1000;
}

/** The Markdown summary (GitHub's step summary). */
export function ciMarkdown(r: CiResult): string {
  const met = r.gates.filter((g) => g.ok).length;
  const head =
    r.exit === 0
      ? `### ${kbz("ci")}: all ${met} gates met against signed oracles`
      : `### ${kbz("ci")}: ${r.gates.length - met} of ${r.gates.length} gates not met`;
  const esc = (s: string) => s.replace(/\|/g, "\\|").replace(/[\r\n]+/g, " ");
  const rows = r.gates.map((g) => `| ${g.ok ? "✅" : "❌"} ${g.verdict} | \`${esc(g.qid)}\` | ${esc(g.reason)} |`);
  return [head, "", "| verdict | gate | reason |", "| --- | --- | --- |", ...rows, ""].join("\n");
}

function xml(s: string): string {
  // XML 1.0 allows no control characters but tab, LF and CR.
  return s
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, "?")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;");
}

/** The JUnit XML report: one testsuite, one testcase per gate (classname: the ledger). */
export function ciJunit(r: CiResult): string {
  const failures = r.gates.filter((g) => !g.ok).length;
  const skipped = r.gates.filter((g) => g.verdict === "ABANDONED").length;
  const total = r.gates.reduce((s, g) => s + g.durationMs, 0) / 1000;
  const cases = r.gates.map((g) => {
    const open = `  <testcase classname="${xml(g.file)}" name="${xml(g.qid)}" time="${(g.durationMs / 1000).toFixed(3)}"`;
    if (g.verdict === "ABANDONED") return `${open}>\n    <skipped message="${xml(g.reason)}"/>\n  </testcase>`;
    if (g.ok) return `${open}>\n    <system-out>${xml(g.reason)}</system-out>\n  </testcase>`;
    return `${open}>\n    <failure type="${g.verdict}" message="${xml(g.reason)}">${xml(g.reason)}</failure>\n  </testcase>`;
  });
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<testsuites name="${kbz("ci")}" tests="${r.gates.length}" failures="${failures}" time="${total.toFixed(3)}">`,
    ` <testsuite name="kbz gates" tests="${r.gates.length}" failures="${failures}" errors="0" skipped="${skipped}" time="${total.toFixed(3)}">`,
    ...cases,
    " </testsuite>",
    "</testsuites>",
    "",
  ].join("\n");
}
