// A person's act, signed (docs/formats.md#signed-records): when git's user.signingKey names an SSH
// key, an approval (kbz approve, kbz check --approve, the dashboard) and a sign-off (kbz sign, the
// dashboard) also leave a signed record in the repository. Under the `signed` policy an act
// without a key is refused before anything is recorded: nothing unsigned would count.
import type { Gate } from "../../core/ledger/model.ts";
import type { RuntimeOracle } from "../../core/run/oracle.ts";
import { KbzError } from "../../core/errors.ts";
import { approvalPayload, signingIdentity, signoffPayload, writeSignedRecord, type SignIdentity } from "./records.ts";

type Env = Record<string, string | undefined>;

/** The identity to sign with: the person's key, or null when none is set (refused under `signed`). */
export function identityForAct(root: string, policy: string, env: Env): SignIdentity | null {
  const id = signingIdentity(root, env);
  if (!id && policy === "signed") {
    throw new KbzError(
      "refused: the signed policy counts only signed approvals and sign-offs, and git's user.signingKey is not set",
      {
        kind: "refused",
        code: "unsigned",
        hint: "a person sets an SSH signing key: git config --global user.signingKey ~/.ssh/id_ed25519 (and gpg.format ssh), then approves or signs again",
      },
    );
  }
  return id;
}

/** Sign a runnable gate's approval; returns the record's root-relative path. */
export function signApproval(
  root: string,
  id: SignIdentity,
  file: string,
  gate: Gate,
  oracle: RuntimeOracle,
  env: Env,
): string {
  return writeSignedRecord(root, approvalPayload(root, file, gate, oracle, id.signer), id, env);
}

/** Sign a manual gate's sign-off; returns the record's root-relative path. */
export function signSignoff(
  root: string,
  id: SignIdentity,
  file: string,
  gate: Gate,
  evidence: string,
  inputs: Record<string, string> | null,
  env: Env,
): string {
  return writeSignedRecord(root, signoffPayload(root, file, gate, evidence, inputs, id.signer), id, env);
}
