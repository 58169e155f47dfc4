// The signature engine is OpenSSH's (docs/formats.md#signed-records): `ssh-keygen -Y sign` with
// the person's key (git's user.signingKey: a key file, a public key whose private half is in the
// ssh-agent, or `key::<public key>`), `ssh-keygen -Y verify` against an allowed-signers file (git's
// gpg.ssh.allowedSignersFile, else `.kbz/allowed_signers` in the repository, else one named on
// the command line). kbz parses the allowed-signers file only to report a malformed line where it
// is; ssh-keygen alone decides whether a signature holds.
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { findProgram } from "../program.ts";
import { KbzError } from "../../core/errors.ts";
import { SIGNATURE_NAMESPACE, SignedFormatError } from "../../core/signed/record.ts";
import { gitEnv, INERT_GIT } from "../git.ts";
import { fastVerify } from "./sshsig.ts";

type Env = Record<string, string | undefined>;

export const REPO_ALLOWED_SIGNERS = ".kbz/allowed_signers";

export class SigningError extends KbzError {
  constructor(message: string, hint: string) {
    super(message, { kind: "infrastructure", code: "signing", hint });
  }
}

/** `ssh-keygen`, or null when OpenSSH's client tools are not installed. */
export function sshKeygen(env: Env = process.env): string | null {
  return findProgram("ssh-keygen", { ...env, PATH: env.PATH ?? "/usr/bin:/bin" });
}

const INSTALL = "install OpenSSH's client (apt-get install openssh-client; brew install openssh)";

function need(env: Env): string {
  const k = sshKeygen(env);
  if (!k) throw new SigningError("ssh-keygen is not installed", INSTALL);
  return k;
}

/** One git config value as git resolves it for `root` (the person's config and the repository's), or null. */
export function gitConfig(
  root: string,
  key: string,
  env: Env = process.env,
  scope: "any" | "global" = "any",
): string | null {
  const args = [...INERT_GIT, "config", ...(scope === "global" ? ["--global"] : []), "--get", key];
  const r = spawnSync("git", args, {
    cwd: root,
    env: gitEnv(env),
    encoding: "utf8",
    timeout: 10_000,
    stdio: ["ignore", "pipe", "ignore"],
  });
  const v = r.status === 0 ? r.stdout.trim() : "";
  return v === "" ? null : v;
}

function expandHome(p: string, env: Env): string {
  return p === "~" || p.startsWith("~/") ? path.join(env.HOME || os.homedir(), p.slice(1)) : p;
}

/** The person's signing key (git's user.signingKey), when it names an SSH key; null when unset. */
export function signingKey(root: string, env: Env = process.env): string | null {
  const v = gitConfig(root, "user.signingkey", env);
  if (!v) return null;
  if (v.startsWith("key::") || /^(ssh-|ecdsa-|sk-)/.test(v)) return v;
  return path.resolve(root, expandHome(v, env));
}

/** The principal a signature names: git's user.email. */
export function signerName(root: string, env: Env = process.env): string | null {
  return gitConfig(root, "user.email", env);
}

/** Where the allowed signers are: `explicit`, else git's gpg.ssh.allowedSignersFile, else the repository's file; null when none exists. */
export function allowedSignersFile(
  root: string,
  env: Env = process.env,
  explicit?: string,
): { file: string; from: string } | null {
  if (explicit) return { file: path.resolve(explicit), from: "--allowed-signers" };
  const v = gitConfig(root, "gpg.ssh.allowedsignersfile", env);
  if (v) return { file: path.resolve(root, expandHome(v, env)), from: "gpg.ssh.allowedSignersFile" };
  const repo = path.join(root, REPO_ALLOWED_SIGNERS);
  return fs.existsSync(repo) ? { file: repo, from: REPO_ALLOWED_SIGNERS } : null;
}

const KEY_TYPES =
  /^(ssh-ed25519|ssh-rsa|ssh-dss|ecdsa-sha2-nistp(256|384|521)|sk-ssh-ed25519@openssh\.com|sk-ecdsa-sha2-nistp256@openssh\.com|ssh-ed25519-cert-v01@openssh\.com|ssh-rsa-cert-v01@openssh\.com)$/;

/** Check an allowed-signers file's lines (`PRINCIPALS [OPTIONS] KEYTYPE BASE64`); the first bad one is a SignedFormatError. Returns the principals. */
export function checkAllowedSigners(text: string, file: string): string[] {
  const principals: string[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === "" || line.startsWith("#")) continue;
    // Options may hold quoted spaces (namespaces="a,b"): split on spaces outside quotes.
    const words = line.match(/(?:[^\s"]+|"[^"]*")+/g) ?? [];
    const at = words.findIndex((w) => KEY_TYPES.test(w));
    if (at < 1 || at + 1 >= words.length || !/^[A-Za-z0-9+/]+={0,3}$/.test(words[at + 1]!)) {
      throw new SignedFormatError(
        "not an allowed-signers line: expected 'PRINCIPALS [OPTIONS] KEYTYPE BASE64-KEY' (e.g. ana@example.com ssh-ed25519 AAAA…)",
        file,
        i + 1,
      );
    }
    for (const opt of words.slice(1, at)) {
      if (!/^(cert-authority|namespaces="[^"]*"|valid-after="?[0-9TZ]+"?|valid-before="?[0-9TZ]+"?)$/i.test(opt))
        throw new SignedFormatError(`unknown option ${JSON.stringify(opt)} in an allowed-signers line`, file, i + 1);
    }
    principals.push(...words[0]!.replace(/"/g, "").split(","));
  }
  return principals;
}

/**
 * Sign `message` with the person's key in kbz's namespace; returns the armored signature. A key
 * that needs a passphrase or a touch asks on the terminal (ssh-keygen opens it itself).
 */
export function sshSign(key: string, message: string, env: Env = process.env): string {
  const keygen = need(env);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "kbz-sign-"));
  try {
    let keyFile = key;
    if (key.startsWith("key::") || /^(ssh-|ecdsa-|sk-)/.test(key)) {
      keyFile = path.join(dir, "key.pub");
      fs.writeFileSync(keyFile, key.replace(/^key::/, "") + "\n", { mode: 0o600 });
    }
    const msg = path.join(dir, "record");
    fs.writeFileSync(msg, message, { mode: 0o600 });
    // stdin and stderr stay the terminal's: a passphrase or a touch is asked there.
    const r = spawnSync(keygen, ["-Y", "sign", "-n", SIGNATURE_NAMESPACE, "-f", keyFile, msg], {
      env: env as NodeJS.ProcessEnv,
      stdio: ["inherit", "ignore", "pipe"],
      encoding: "utf8",
      timeout: 120_000,
    });
    if (r.status !== 0) {
      const why = (r.stderr ?? "").trim().split("\n").pop() || `ssh-keygen exited ${r.status ?? r.signal}`;
      throw new SigningError(
        `cannot sign with ${key.startsWith("key::") ? "the key in user.signingKey" : key}: ${why}`,
        "check git's user.signingKey (a private key file, or a public key loaded in ssh-agent)",
      );
    }
    return fs.readFileSync(`${msg}.sig`, "utf8");
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const allowedTexts = new Map<string, string>();
/** An allowed-signers file's text, read once per process. */
function allowedText(file: string): string {
  let t = allowedTexts.get(file);
  if (t === undefined) {
    try {
      t = fs.readFileSync(file, "utf8");
    } catch {
      t = "";
    }
    allowedTexts.set(file, t);
  }
  return t;
}

export type VerifyResult = { ok: true; principal: string } | { ok: false; reason: string };

function run(
  cmd: string,
  args: string[],
  input: string,
  env: Env,
): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const p = spawn(cmd, args, { env: env as NodeJS.ProcessEnv, stdio: ["pipe", "pipe", "pipe"] });
    let out = "",
      err = "";
    p.stdout.on("data", (d) => (out += d));
    p.stderr.on("data", (d) => (err += d));
    p.on("error", (e) => resolve({ code: null, out, err: e.message }));
    p.on("close", (code) => resolve({ code, out, err }));
    p.stdin.on("error", () => {});
    p.stdin.end(input);
  });
}

/**
 * Does `signature` sign exactly `message` in kbz's namespace, by `principal` as the allowed
 * signers say? One `ssh-keygen -Y verify`; on failure, `check-novalidate` and `find-principals`
 * tell a signer not allowed from a signature over other bytes.
 */
export async function sshVerify(
  message: string,
  signature: string,
  principal: string,
  allowed: string,
  tmp: string,
  env: Env = process.env,
): Promise<VerifyResult> {
  if (fastVerify(message, signature, principal, allowedText(allowed))) return { ok: true, principal };
  return verifyWith((args, input) => run(need(env), args, input, env), message, signature, principal, allowed, tmp);
}

/** sshVerify, synchronously (status and the Stop hook under the signed policy). */
export function sshVerifySync(
  message: string,
  signature: string,
  principal: string,
  allowed: string,
  tmp: string,
  env: Env = process.env,
): VerifyResult {
  if (fastVerify(message, signature, principal, allowedText(allowed))) return { ok: true, principal };
  const keygen = need(env);
  const runSync = (args: string[], input: string) => {
    const r = spawnSync(keygen, args, { input, env: env as NodeJS.ProcessEnv, encoding: "utf8", timeout: 30_000 });
    return { code: r.error ? null : r.status, out: r.stdout ?? "", err: r.error?.message ?? r.stderr ?? "" };
  };
  // The same steps as sshVerify, each answered at once.
  const steps = verifySteps(message, signature, principal, allowed, tmp);
  let next = steps.next();
  while (!next.done) next = steps.next(runSync(next.value.args, next.value.input));
  return next.value;
}

type Step = { args: string[]; input: string };
type Ran = { code: number | null; out: string; err: string };

async function verifyWith(
  exec: (args: string[], input: string) => Promise<Ran>,
  message: string,
  signature: string,
  principal: string,
  allowed: string,
  tmp: string,
): Promise<VerifyResult> {
  const steps = verifySteps(message, signature, principal, allowed, tmp);
  let next = steps.next();
  while (!next.done) next = steps.next(await exec(next.value.args, next.value.input));
  return next.value;
}

/** The ssh-keygen calls of one verification, as a generator the sync and async callers drive. */
function* verifySteps(
  message: string,
  signature: string,
  principal: string,
  allowed: string,
  tmp: string,
): Generator<Step, VerifyResult, Ran> {
  const sig = path.join(tmp, `${process.pid}-${Math.random().toString(36).slice(2)}.sig`);
  fs.writeFileSync(sig, signature, { mode: 0o600 });
  try {
    const v = yield {
      args: ["-Y", "verify", "-f", allowed, "-I", principal, "-n", SIGNATURE_NAMESPACE, "-s", sig],
      input: message,
    };
    if (v.code === 0) return { ok: true, principal };
    if (v.code === null) return { ok: false, reason: `ssh-keygen did not run: ${v.err}` };
    const valid = yield { args: ["-Y", "check-novalidate", "-n", SIGNATURE_NAMESPACE, "-s", sig], input: message };
    if (valid.code !== 0)
      return {
        ok: false,
        reason: "the signature does not match the record's bytes (edited after signing, or signed for something else)",
      };
    const who = yield { args: ["-Y", "find-principals", "-s", sig, "-f", allowed], input: "" };
    const names = who.code === 0 ? who.out.trim().split("\n").filter(Boolean) : [];
    if (names.length === 0) return { ok: false, reason: `the signer's key is not an allowed signer (${allowed})` };
    return { ok: false, reason: `the record names signer ${principal}, but the key belongs to ${names.join(", ")}` };
  } finally {
    fs.rmSync(sig, { force: true });
  }
}
