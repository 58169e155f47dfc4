// Which approval records no longer match anything: the ledger is gone, the gate is gone,
// or the gate's current CHECK/EXPECT differ from what was approved. Records whose ledger
// cannot be read or parsed right now are kept: a half-saved file is no reason to forget.
import * as fs from "node:fs";
import { isRunnable, stemOf } from "../../core/ledger/model.ts";
import { parseLedger } from "../../core/ledger/parse.ts";
import { ReadError } from "../../core/errors.ts";
import { readLedgerText } from "../read.ts";
import type { ApprovalRecord } from "./approval.ts";

export function obsoleteReason(record: ApprovalRecord): string | null {
  let decoded: ReturnType<typeof readLedgerText>;
  try {
    decoded = readLedgerText(record.file);
  } catch (e) {
    if (e instanceof ReadError && e.code === "ENOENT") {
      let exists = true;
      try {
        fs.lstatSync(record.file);
      } catch {
        exists = false;
      }
      if (!exists) return "ledger no longer exists";
    }
    return null;
  }
  if (!("text" in decoded)) return null;
  const ledger = parseLedger(decoded.text, stemOf(record.file));
  if (ledger.errors.length > 0) return null;
  const gate = ledger.gates.find((g) => g.id === record.gate);
  if (!gate) return "gate no longer exists";
  if (!isRunnable(gate) || gate.check !== record.oracle.check || gate.expect !== record.oracle.expect)
    return "oracle changed";
  return null;
}
