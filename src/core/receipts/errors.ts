// The receipts' one failure type. `reason` keeps verify-once's wording (kill Appendix A.3) so
// callers and scripts can match it; `file`/`line` or `path` say where, `detail` says more.

export interface Where {
  file?: string; // a file whose content is at fault (ledger, store, PLAN), root-relative
  line?: number;
  path?: string; // an input path at fault, root-relative
  detail?: string;
}

export class VerificationError extends Error {
  constructor(
    readonly reason: string,
    readonly where: Where = {},
  ) {
    super(reason);
  }

  /** `<file>:<line>: <reason>` for file content, `<reason>: <path>` for inputs, else the reason. */
  located(): string {
    const detail = this.where.detail ? ` (${this.where.detail})` : "";
    if (this.where.file !== undefined) return `${this.where.file}:${this.where.line ?? 1}: ${this.reason}${detail}`;
    if (this.where.path !== undefined) return `${this.reason}: ${this.where.path}${detail}`;
    return this.reason + detail;
  }
}
