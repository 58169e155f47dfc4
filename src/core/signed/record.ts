// Signed records (docs/formats.md#signed-records): a person's approval of one runnable gate's
// oracle, or sign-off of one manual gate, kept in the repository under `.kbz/signed/` and signed
// with the person's SSH key in git's format (`ssh-keygen -Y sign -n kbz`). Pure: the text format,
// its parser (every problem located `<file>:<line>`), the portable oracle (what a clean checkout
// on another machine can compare: nothing absolute, no PATH string) and the comparison that names
// what changed. Signing and verifying is io/sign/ssh.ts.
//
// The file is text a person reads without kbz: one `key: <JSON value>` line each, then the
// armored SSH signature. The signed bytes are exactly the lines before `-----BEGIN SSH SIGNATURE-----`.
import { KbzError } from "../errors.ts";
import { sha256Hex } from "../util/hash.ts";
import { kbz } from "../text/command.ts";

/** The namespace of every kbz signature (`ssh-keygen -Y sign -n kbz`): a git commit signature never verifies as one. */
export const SIGNATURE_NAMESPACE = "kbz";
export const SIGNED_DIR = ".kbz/signed";
export const MAX_RECORD_BYTES = 64 * 1024;
const BEGIN = "-----BEGIN SSH SIGNATURE-----";
const END = "-----END SSH SIGNATURE-----";
const HEADER = "kbz-signed-record: 1";

export type SignedKind = "approval" | "sign-off";

/** The oracle as a clean checkout on any machine can compare it: paths relative to the root. */
export interface PortableOracle {
  check: string;
  expect: string;
  /** The CHECK directory relative to the root ("." for the root). */
  cwd: string;
  timeoutMs: number;
  /** The shell's base name (bash, sh): the shell's path differs between machines. */
  shell: string;
  /** Bound files: root-relative key → digest (package.json scripts as `<file>#scripts.<name>`). */
  files: Record<string, string>;
  /** Programs the CHECK runs, by name → identity as the person's machine resolved it (shown, not compared). */
  programs: Record<string, string>;
  /** ENV names the CHECK receives (their values are the CI's own). */
  env: string[];
  /** The sandbox the person approved, portable: null for none. */
  sandbox: { network: string; writable: string[]; hidden: string[] } | null;
}

export interface SignedPayload {
  kind: SignedKind;
  /** The ledger, root-relative with `/`. */
  ledger: string;
  gate: string;
  /** The gate's definition digest (runnable: unlazy's; manual: signoffDefinition). */
  definition: string;
  /** The gate's title line as the person saw it. */
  title: string;
  oracle?: PortableOracle;
  /** Sign-off: the evidence the person wrote, and the INPUTS they reviewed (path → digest). */
  evidence?: string;
  inputs?: Record<string, string> | null;
  /** The principal (git's user.email) the signature is checked against in the allowed signers. */
  signer: string;
  signedAt: string;
}

export interface SignedRecord {
  payload: SignedPayload;
  /** The exact signed bytes. */
  message: string;
  /** The armored signature, or null for an unsigned record. */
  signature: string | null;
}

/** A malformed record or allowed-signers line: `<file>:<line>: <message>`, exit 2. */
export class SignedFormatError extends KbzError {
  constructor(message: string, file: string, line: number) {
    super(message, {
      kind: "input",
      code: "signed-format",
      file,
      line,
      hint: `sign the gate again (${kbz("approve")} or ${kbz("sign")} with git's user.signingKey set), or fix the line; docs/formats.md#signed-records`,
    });
  }
}

/** The digest a manual gate's sign-off binds: its title and its INPUTS globs. */
export function signoffDefinition(title: string, inputs: string[] | null): string {
  return sha256Hex(JSON.stringify(["kbz.manual-gate", 1, title, inputs]));
}

/** Where the record of a gate lives: `.kbz/signed/<ledger>/<gate>.<kind>`. */
export function recordRelPath(ledger: string, gate: string, kind: SignedKind): string {
  return `${SIGNED_DIR}/${ledger}/${gate}.${kind}`;
}

/** The signed bytes of a payload: one `key: <JSON>` line each, in a fixed order. */
export function formatPayload(p: SignedPayload): string {
  const lines = [
    HEADER,
    `kind: ${JSON.stringify(p.kind)}`,
    `ledger: ${JSON.stringify(p.ledger)}`,
    `gate: ${JSON.stringify(p.gate)}`,
    `title: ${JSON.stringify(p.title)}`,
    `definition: ${JSON.stringify(p.definition)}`,
  ];
  const o = p.oracle;
  if (o) {
    lines.push(
      `check: ${JSON.stringify(o.check)}`,
      `expect: ${JSON.stringify(o.expect)}`,
      `cwd: ${JSON.stringify(o.cwd)}`,
      `timeout-ms: ${o.timeoutMs}`,
      `shell: ${JSON.stringify(o.shell)}`,
    );
    for (const k of Object.keys(o.files).sort()) lines.push(`file: ${JSON.stringify([k, o.files[k]])}`);
    for (const k of Object.keys(o.programs).sort()) lines.push(`program: ${JSON.stringify([k, o.programs[k]])}`);
    for (const n of [...o.env].sort()) lines.push(`env: ${JSON.stringify(n)}`);
    lines.push(`sandbox: ${JSON.stringify(o.sandbox)}`);
  }
  if (p.kind === "sign-off") {
    lines.push(`evidence: ${JSON.stringify(p.evidence ?? "")}`);
    if (p.inputs)
      for (const k of Object.keys(p.inputs).sort()) lines.push(`input: ${JSON.stringify([k, p.inputs[k]])}`);
    else lines.push("inputs: null");
  }
  lines.push(`signer: ${JSON.stringify(p.signer)}`, `signed-at: ${JSON.stringify(p.signedAt)}`);
  return lines.join("\n") + "\n";
}

/** The whole file: the payload, then the armored signature. */
export function formatRecord(message: string, signature: string): string {
  return message + signature.trimEnd() + "\n";
}

const ONCE = new Set([
  "kind",
  "ledger",
  "gate",
  "title",
  "definition",
  "check",
  "expect",
  "cwd",
  "timeout-ms",
  "shell",
  "sandbox",
  "evidence",
  "inputs",
  "signer",
  "signed-at",
]);
const MANY = new Set(["file", "program", "env", "input"]);

function isPair(v: unknown): v is [string, string] {
  return Array.isArray(v) && v.length === 2 && typeof v[0] === "string" && typeof v[1] === "string";
}

/** Parse a record file's text; every problem is a SignedFormatError at its line. */
export function parseRecord(text: string, file: string): SignedRecord {
  if (text.length > MAX_RECORD_BYTES) throw new SignedFormatError(`record is over ${MAX_RECORD_BYTES} bytes`, file, 1);
  const begin = text.indexOf(`\n${BEGIN}`);
  const message = begin >= 0 ? text.slice(0, begin + 1) : text;
  let signature: string | null = null;
  if (begin >= 0) {
    signature = text.slice(begin + 1);
    const endAt = signature.indexOf(END);
    const line = message.split("\n").length;
    if (endAt < 0) throw new SignedFormatError(`the signature has no ${END} line`, file, line);
    if (signature.slice(endAt + END.length).trim() !== "")
      throw new SignedFormatError(
        "text after the signature",
        file,
        line + signature.slice(0, endAt).split("\n").length,
      );
  } else if (text.includes(BEGIN)) {
    throw new SignedFormatError(
      `${BEGIN} must start a line`,
      file,
      text.slice(0, text.indexOf(BEGIN)).split("\n").length,
    );
  }
  const lines = message.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  if (lines[0] !== HEADER)
    throw new SignedFormatError(`not a kbz signed record: the first line must be '${HEADER}'`, file, 1);
  const seen = new Map<string, unknown>();
  const many: Record<string, unknown[]> = { file: [], program: [], env: [], input: [] };
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    const m = /^([a-z-]+): (.*)$/.exec(line);
    if (!m) throw new SignedFormatError("expected 'key: <JSON value>'", file, i + 1);
    const [, key, raw] = m as unknown as [string, string, string];
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      throw new SignedFormatError(`${key}: the value is not JSON`, file, i + 1);
    }
    if (MANY.has(key)) {
      if (key === "env" ? typeof value !== "string" : !isPair(value))
        throw new SignedFormatError(
          `${key}: expected ${key === "env" ? "a string" : '["name", "digest"]'}`,
          file,
          i + 1,
        );
      many[key]!.push(value);
    } else if (ONCE.has(key)) {
      if (seen.has(key)) throw new SignedFormatError(`${key}: given twice`, file, i + 1);
      seen.set(key, { value, line: i + 1 });
    } else throw new SignedFormatError(`unknown key '${key}'`, file, i + 1);
  }
  const get = (key: string) => seen.get(key) as { value: unknown; line: number } | undefined;
  const str = (key: string): string => {
    const e = get(key);
    if (!e) throw new SignedFormatError(`missing '${key}:' line`, file, lines.length + 1);
    if (typeof e.value !== "string" || e.value === "")
      throw new SignedFormatError(`${key}: expected a non-empty string`, file, e.line);
    return e.value;
  };
  const kind = str("kind");
  if (kind !== "approval" && kind !== "sign-off")
    throw new SignedFormatError(
      `kind: expected "approval" or "sign-off", not ${JSON.stringify(kind)}`,
      file,
      get("kind")!.line,
    );
  const payload: SignedPayload = {
    kind,
    ledger: str("ledger"),
    gate: str("gate"),
    title: typeof get("title")?.value === "string" ? (get("title")!.value as string) : "",
    definition: str("definition"),
    signer: str("signer"),
    signedAt: str("signed-at"),
  };
  if (kind === "approval") {
    const num = get("timeout-ms");
    if (!num || typeof num.value !== "number" || !Number.isInteger(num.value) || num.value <= 0)
      throw new SignedFormatError("timeout-ms: expected a positive integer", file, num?.line ?? lines.length + 1);
    const sb = get("sandbox");
    if (!sb) throw new SignedFormatError("missing 'sandbox:' line", file, lines.length + 1);
    const s = sb.value as PortableOracle["sandbox"];
    if (
      s !== null &&
      (typeof s !== "object" || !Array.isArray(s.writable) || !Array.isArray(s.hidden) || typeof s.network !== "string")
    )
      throw new SignedFormatError('sandbox: expected null or {"network":…,"writable":[…],"hidden":[…]}', file, sb.line);
    payload.oracle = {
      check: str("check"),
      expect: str("expect"),
      cwd: str("cwd"),
      timeoutMs: num.value,
      shell: str("shell"),
      files: Object.fromEntries(many.file as [string, string][]),
      programs: Object.fromEntries(many.program as [string, string][]),
      env: many.env as string[],
      sandbox: s,
    };
  } else {
    const ev = get("evidence");
    if (!ev || typeof ev.value !== "string")
      throw new SignedFormatError("evidence: expected a string", file, ev?.line ?? lines.length + 1);
    payload.evidence = ev.value;
    payload.inputs = get("inputs") ? null : Object.fromEntries(many.input as [string, string][]);
  }
  return { payload, message, signature };
}

/**
 * What differs between the oracle a person signed and the one the checkout gives now, in words
 * (empty when they match). Programs are the person's machine's and are not compared; the CHECK
 * runs with the timeout the person approved.
 */
export function oracleChanges(signed: PortableOracle, now: PortableOracle): string[] {
  const out: string[] = [];
  if (signed.check !== now.check)
    out.push(`CHECK changed (signed ${JSON.stringify(signed.check)}, now ${JSON.stringify(now.check)})`);
  if (signed.expect !== now.expect)
    out.push(`EXPECT changed (signed ${JSON.stringify(signed.expect)}, now ${JSON.stringify(now.expect)})`);
  if (signed.cwd !== now.cwd) out.push(`CWD changed (signed ${signed.cwd}, now ${now.cwd})`);
  for (const k of Object.keys(signed.files).sort()) {
    if (!(k in now.files)) out.push(`oracle file ${k} no longer bound`);
    else if (now.files[k] !== signed.files[k]) out.push(`oracle file ${k} changed`);
  }
  for (const k of Object.keys(now.files).sort()) if (!(k in signed.files)) out.push(`oracle file ${k} added`);
  const se = [...signed.env].sort().join(","),
    ne = [...now.env].sort().join(",");
  if (se !== ne) out.push(`ENV names changed (signed ${se || "none"}, now ${ne || "none"})`);
  if (JSON.stringify(signed.sandbox) !== JSON.stringify(now.sandbox))
    out.push(
      `sandbox changed (signed ${signed.sandbox ? "sandboxed" : "none"}, now ${now.sandbox ? "sandboxed" : "none"})`,
    );
  return out;
}

/** What differs between the INPUTS a person reviewed and the checkout's. */
export function inputChanges(signed: Record<string, string> | null, now: Record<string, string> | null): string[] {
  const out: string[] = [];
  const a = signed ?? {},
    b = now ?? {};
  for (const k of Object.keys(a).sort()) {
    if (!(k in b)) out.push(`input ${k} removed`);
    else if (a[k] !== b[k]) out.push(`input ${k} changed`);
  }
  for (const k of Object.keys(b).sort()) if (!(k in a)) out.push(`input ${k} added`);
  return out;
}
