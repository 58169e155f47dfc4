// Targeted line edits for writeback (docs/formats.md#evidence). Only the gate's own lines change;
// every other byte, including each line's own terminator, is kept. (unlazy normalised
// mixed-EOL files to CRLF on write; kbz keeps each line's terminator instead.)
import type { Gate, Ledger } from "./model.ts";
import { splitLines } from "./parse.ts";

export function serializeLines(lines: string[], eols: string[]): string {
  let out = "";
  for (let i = 0; i < lines.length; i++) out += lines[i] + eols[i]!;
  return out;
}

function dominantEol(eols: string[]): string {
  let crlf = 0;
  let lf = 0;
  for (const e of eols) {
    if (e === "\r\n") crlf++;
    else if (e === "\n") lf++;
  }
  return crlf > lf ? "\r\n" : "\n";
}

export interface GateEdit {
  checked: boolean;
  evidence: string;
}

/** Apply one gate edit to the text `gate` was parsed from and return the new text. */
export function applyGateEdit(ledger: Pick<Ledger, "text">, gate: Gate, edit: GateEdit): string {
  const { lines, eols } = splitLines(ledger.text);
  const gi = gate.line - 1;
  lines[gi] = lines[gi]!.replace(/^- \[[ xX]\]/, edit.checked ? "- [x]" : "- [ ]");
  const ei = gate.attrIndex.EVIDENCE;
  if (ei !== undefined) {
    const indent = /^[ \t]+/.exec(lines[ei]!)![0];
    lines[ei] = `${indent}EVIDENCE: ${edit.evidence}`;
  } else {
    const at = gate.blockEnd;
    const eol = eols[at] || dominantEol(eols);
    // Only the last line has no terminator: a block that ended the file without a newline
    // gets one, and the inserted EVIDENCE line ends the file as the block did.
    const endedFile = eols[at] === "";
    if (endedFile) eols[at] = eol;
    lines.splice(at + 1, 0, `  EVIDENCE: ${edit.evidence}`);
    eols.splice(at + 1, 0, endedFile ? "" : eol);
  }
  return serializeLines(lines, eols);
}
