// The receipts' one failure type. `reason` keeps verify-once's wording (docs/formats.md#receipts)
// so callers and scripts can match it; `file`/`line` say where, `detail` says more.
import { KbzError } from "../errors.ts";
import { kbz } from "../text/command.ts";

export interface Where {
  file?: string; // a file whose content is at fault (ledger, store, PLAN), root-relative; line 1 unless given
  line?: number;
  path?: string; // an input name at fault (no line), root-relative
  detail?: string;
}

export class VerificationError extends KbzError {
  constructor(
    readonly reason: string,
    readonly where: Where = {},
  ) {
    super(reason, {
      code: "verification",
      file: where.file ?? where.path,
      line: where.file !== undefined ? (where.line ?? 1) : undefined,
      hint: `fix the named input, then run ${kbz("verify")} again`,
    });
  }
}

/**
 * verify-once's wording of a failure (docs/formats.md#receipts): `<file>:<line>: <reason> (<detail>)` for file
 * content, `<reason>: <path> (<detail>)` for an input name (its golden transcripts print it so), else the reason.
 */
export function verificationText(e: VerificationError): string {
  const detail = e.where.detail ? ` (${e.where.detail})` : "";
  return e.where.path !== undefined ? `${e.message}: ${e.where.path}${detail}` : e.located() + detail;
}
