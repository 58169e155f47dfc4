// The `signed` policy in every verdict (docs/formats.md#signed-policy): status, the Stop hook,
// check's verdict and the dashboard read the snapshot through ops/snapshot.ts, which calls
// markUnsigned. Under the signed policy a met gate counts only while the repository holds a record
// of it, signed by an allowed signer, that matches it now (io/sign/unsigned.ts, the same check as
// `kbz ci`). Under the other policies this costs one failed open of policy.json or one small read,
// and no module of the signing code is evaluated: unsigned.ts (ssh-keygen, the oracle binding) is
// required only under the signed policy (it was ~7 % of a 200-gate Stop hook's CPU when loaded
// eagerly, farm-bench, load 10).
import type { Snapshot } from "../../core/snapshot.ts";
import { approvalDirFor } from "../run/approval.ts";
import { readPolicy } from "../run/personal.ts";

type Env = Record<string, string | undefined>;

/** Under the signed policy: each met gate without a matching signed record becomes UNATTESTED (UNSIGNED: why). */
export function markUnsigned(snap: Snapshot, env: Env = process.env): void {
  if (readPolicy(approvalDirFor(env)) !== "signed") return;
  const { markUnsignedNow } = require("./unsigned.ts") as typeof import("./unsigned.ts");
  markUnsignedNow(snap, env);
}
