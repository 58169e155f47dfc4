// Automatic evidence: the string written on success and how an EVIDENCE value is classified.
import type { Gate } from "./model.ts";
import { gateDigest, sha256Hex } from "./digest.ts";
import { transcriptSafe } from "../text/sanitize.ts";
import { evidenceRecord, verify } from "../trace.ts";

export const MAX_EVIDENCE = 900;
export const MAX_OUTPUT_BYTES = 1_048_576;

export type EvidenceClass = "pending" | "automatic-current" | "automatic-stale" | "human";

// What follows the definition digest in current evidence; sticky, so it is matched in place.
const TAIL = / exit=0; EXPECT=matched; output-sha256=[0-9a-f]{64}; output-bytes=(?:0|[1-9][0-9]{0,6}); shell=./sy;
const BYTES_AT = " exit=0; EXPECT=matched; output-sha256=".length + 64 + "; output-bytes=".length;

export function evidencePrefix(digest: string): string {
  return `automatic-evidence=v1; definition-sha256=${digest};`;
}

const HEADER = "automatic-evidence=v1; definition-sha256=";

export function classifyEvidence(g: Gate): EvidenceClass {
  const v = g.evidence;
  if (v === null || v === "" || (v.length === 7 && v.toLowerCase() === "pending")) return "pending";
  // The evidence line is the ledger's own verdict record (core/trace.ts): met, depending on the
  // definition digest it names. The current digest is only worth computing when the value could
  // be current evidence; the tail is matched in place (this runs for every gate of every snapshot).
  const at = HEADER.length + 64;
  if (v.startsWith(HEADER) && v.length <= MAX_EVIDENCE && v.charCodeAt(at) === 59) {
    const record = evidenceRecord(g.id, v.slice(HEADER.length, at));
    TAIL.lastIndex = at + 1;
    if (
      verify(record, { definition: gateDigest(g) ?? "" }).status === "valid" &&
      TAIL.test(v) &&
      outputBytesAt(v, at + 1 + BYTES_AT) <= MAX_OUTPUT_BYTES
    ) {
      return "automatic-current";
    }
  }
  if (v.startsWith("automatic-evidence=") || v.startsWith("exit=0; shell=")) return "automatic-stale";
  return "human";
}

/** The decimal number at `at` (TAIL has already checked it is 1-7 digits). */
function outputBytesAt(v: string, at: number): number {
  let n = 0;
  for (let c = v.charCodeAt(at); c >= 48 && c <= 57; c = v.charCodeAt(++at)) n = n * 10 + (c - 48);
  return n;
}

function transcriptField(text: string): string {
  return transcriptSafe(text).replace(/[\r\n\t]+/g, " ");
}

export interface EvidenceFacts {
  digest: string;
  outputSha256: string;
  outputBytes: number;
  shell: string;
  cwd: string;
  pathFingerprint: string; // "<12hex>/<n> entries"
}

export function automaticEvidence(f: EvidenceFacts): string {
  const text =
    `${evidencePrefix(f.digest)} exit=0; EXPECT=matched; output-sha256=${f.outputSha256}; ` +
    `output-bytes=${f.outputBytes}; shell=${transcriptField(f.shell)}; cwd=${transcriptField(f.cwd)}; path=${f.pathFingerprint}`;
  return text.length > MAX_EVIDENCE ? text.slice(0, MAX_EVIDENCE) : text;
}

/**
 * The canonical output of a CHECK: stdout decoded as UTF-8, one "\n" when both streams
 * are non-empty, then stderr. Invalid bytes decode to U+FFFD (3 bytes each).
 */
export function canonicalOutput(stdout: Uint8Array, stderr: Uint8Array): string {
  const dec = new TextDecoder("utf-8");
  const a = dec.decode(stdout);
  const b = dec.decode(stderr);
  return a.length > 0 && b.length > 0 ? `${a}\n${b}` : a + b;
}

export function outputFingerprint(canonical: string): { sha256: string; bytes: number } {
  const buf = Buffer.from(canonical, "utf8");
  return { sha256: sha256Hex(buf), bytes: buf.length };
}
