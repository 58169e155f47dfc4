// The signed policy's check of a snapshot's met gates (docs/formats.md#signed-policy), loaded by
// io/sign/status.ts only under that policy: a met gate counts only while the repository holds a
// record of it, signed by an allowed signer, that matches it now (the same check as `kbz ci`,
// io/sign/records.ts); otherwise it reads UNATTESTED with `UNSIGNED: <reason>`.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { isRunnable } from "../../core/ledger/model.ts";
import { pathFacts } from "../../core/run/show.ts";
import type { Snapshot } from "../../core/snapshot.ts";
import { baseDir, gateCwd, oracleFor, realCwd, sandboxFor, type RunSettings } from "../check/plan.ts";
import { readRepoSettings } from "../check/settings.ts";
import { digestInputs } from "../inputs/records.ts";
import { requestedShell, resolveShell } from "../run/shell.ts";
import { checkRecord, portableOracle } from "./records.ts";
import { allowedSignersFile, checkAllowedSigners, sshKeygen, sshVerifySync } from "./ssh.ts";

type Env = Record<string, string | undefined>;

/** The run settings a status read compares oracles under (kbz check's defaults). */
function settingsFor(root: string, env: Env): RunSettings {
  const repo = readRepoSettings(root);
  return {
    shell: resolveShell(requestedShell(undefined, env), env),
    path: pathFacts(env.PATH ?? ""),
    timeoutMs: 120_000,
    cwd: null,
    sandbox: { all: repo.sandbox, writable: repo.writable.map((p) => ({ path: p, origin: repo.file })), root, env },
    root,
    env,
  };
}

/** Each met gate without a matching signed record becomes UNATTESTED (UNSIGNED: why); io/sign/status.ts calls it under the signed policy. */
export function markUnsignedNow(snap: Snapshot, env: Env): void {
  const met = snap.gates.filter((v) => v.state === "met");
  if (met.length === 0) return;
  const root = snap.target.root;
  const unsign = (v: (typeof met)[number], why: string) => {
    v.state = "unattested";
    v.reason = `UNSIGNED: ${why} (the signed policy counts only a record signed by an allowed signer)`;
  };
  let allowed: string | null = null;
  let problem: string | null = null;
  try {
    const found = allowedSignersFile(root, env);
    if (!found) problem = "no allowed signers (set gpg.ssh.allowedSignersFile or commit .kbz/allowed_signers)";
    else {
      checkAllowedSigners(fs.readFileSync(found.file, "utf8"), found.file);
      allowed = found.file;
    }
    if (!sshKeygen(env)) problem = "ssh-keygen is not installed";
  } catch (e) {
    problem = (e as Error).message;
  }
  if (problem !== null) {
    for (const v of met) unsign(v, problem);
    return;
  }
  const settings = settingsFor(root, env);
  const ledgers = new Map(snap.ledgers.map((l) => [l.file, l.ledger]));
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "kbz-signed-"));
  try {
    for (const v of met) {
      try {
        const dir = baseDir(snap, v.file, settings);
        const c = isRunnable(v.gate)
          ? checkRecord(root, v.file, v.gate, {
              oracle: portableOracle(
                root,
                v.gate,
                oracleFor(
                  v.file,
                  dir,
                  v.gate,
                  settings,
                  sandboxFor(settings, v.file, ledgers.get(v.file)?.sandbox ?? null),
                ),
              ),
            })
          : checkRecord(root, v.file, v.gate, {
              inputs: v.gate.inputs ? digestInputs(root, realCwd(gateCwd(dir, v.gate)), v.gate.inputs).files : null,
            });
        if (!c.ok) {
          unsign(v, c.reason);
          continue;
        }
        const s = sshVerifySync(c.verify.message, c.verify.signature, c.verify.signer, allowed!, tmp, env);
        if (!s.ok) unsign(v, `${c.verify.rel}: ${s.reason}`);
        else if (c.changes.length > 0) unsign(v, `changed since signed: ${c.changes.join("; ")}`);
      } catch (e) {
        unsign(v, (e as Error).message);
      }
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
