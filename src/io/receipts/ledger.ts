// One ledger as receipts see it (docs/formats.md#receipts): read stably, parsed, and whether every gate is met.
import * as path from "node:path";
import type { Ledger } from "../../core/ledger/model.ts";
import { stemOf } from "../../core/ledger/model.ts";
import { parseLedger, splitLines } from "../../core/ledger/parse.ts";
import { gateState, type GateState } from "../../core/ledger/state.ts";
import { ReadError } from "../../core/errors.ts";
import { readLedgerText } from "../read.ts";
import { VerificationError } from "../../core/receipts/errors.ts";
import { localPath } from "./paths.ts";

export interface LedgerRead {
  key: string; // root-relative, `/` separators
  abs: string;
  text: string;
  doc: Ledger;
  states: GateState[];
  met: boolean; // every gate met (an abandoned gate is not)
}

const MALFORMED = "malformed or empty gate ledger";

/** The ledger at `file`; with `given` (its text from the verb's read, null when absent), no file is opened. */
export function readLedger(root: string, file: string, given?: (key: string) => string | null | undefined): LedgerRead {
  const { abs, rel: key } = localPath(root, file);
  let decoded: ReturnType<typeof readLedgerText>;
  try {
    const text = given?.(key);
    if (text === null) throw new ReadError("no such gate ledger", "ENOENT", abs);
    decoded = text === undefined ? readLedgerText(abs, root) : { text };
  } catch (e) {
    if (!(e instanceof ReadError)) throw e;
    throw new VerificationError(MALFORMED, {
      file: key,
      line: 1,
      detail: e.code === "ENOENT" ? "no such file" : e.message,
    });
  }
  if (!("text" in decoded))
    throw new VerificationError(MALFORMED, { file: key, line: decoded.line, detail: decoded.message });
  const doc = parseLedger(decoded.text, stemOf(path.basename(abs)));
  if (doc.errors.length > 0)
    throw new VerificationError(MALFORMED, { file: key, line: doc.errors[0]!.line, detail: doc.errors[0]!.message });
  if (doc.gates.length === 0) throw new VerificationError(MALFORMED, { file: key, line: 1, detail: "no gates" });
  const states = doc.gates.map((g) => gateState(g, doc));
  return { key, abs, text: decoded.text, doc, states, met: states.every((s) => s === "met") };
}

const GATE_LINE = /^- \[[ xX]\]/;
const EVIDENCE_LINE = /^[ \t]+EVIDENCE:/;

/**
 * The ledger's definition: the text with every gate box unchecked and every indented EVIDENCE
 * line left out. Titles, CHECK/EXPECT/CWD, OWNS, ABANDON and prose stay bound; marks and evidence
 * do not. Two deliberate fixes of docs/formats.md#receipts: `[X]` normalises like `[x]` (docs/formats.md#fixes), and an
 * EVIDENCE line the checker inserts into a gate that had none no longer changes the definition
 * between the before and after snapshots of one run (docs/formats.md#fixes).
 */
export function normalizedDefinition(text: string): string {
  const { lines, eols } = splitLines(text);
  let out = "";
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (EVIDENCE_LINE.test(line)) continue;
    out += (GATE_LINE.test(line) ? "- [ ]" + line.slice(5) : line) + eols[i];
  }
  return out;
}
