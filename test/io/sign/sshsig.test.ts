// The in-process fast path of signature verification (io/sign/sshsig.ts) against ssh-keygen on
// real keys made here: every signature it accepts, ssh-keygen -Y verify accepts; everything else
// (other bytes, another namespace, a principal or key not allowed, options it leaves to ssh-keygen)
// it leaves to ssh-keygen (null), never accepts.
import { beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { tempDir } from "../../helpers/kbz.ts";
import { fastVerify } from "../../../src/io/sign/sshsig.ts";

const HAVE = spawnSync("ssh-keygen", ["-?"]).error === undefined;
if (!HAVE) console.log("skip: sshsig needs ssh-keygen: apt-get install openssh-client");

let dir: string;
const KEYS: [string, string[]][] = [
  ["ed", ["-t", "ed25519"]],
  ["rsa", ["-t", "rsa", "-b", "2048"]],
  ["ec256", ["-t", "ecdsa", "-b", "256"]],
  ["ec521", ["-t", "ecdsa", "-b", "521"]],
];

function sign(key: string, message: string, ns = "kbz"): string {
  const f = path.join(dir, `m-${Math.random().toString(36).slice(2)}`);
  fs.writeFileSync(f, message);
  expect(spawnSync("ssh-keygen", ["-Y", "sign", "-n", ns, "-f", path.join(dir, key), f]).status).toBe(0);
  return fs.readFileSync(`${f}.sig`, "utf8");
}

function keygen(message: string, sig: string, principal: string, allowed: string): boolean {
  const a = path.join(dir, "allowed");
  const s = path.join(dir, "s.sig");
  fs.writeFileSync(a, allowed);
  fs.writeFileSync(s, sig);
  return (
    spawnSync("ssh-keygen", ["-Y", "verify", "-f", a, "-I", principal, "-n", "kbz", "-s", s], { input: message })
      .status === 0
  );
}

const pub = (k: string) =>
  fs
    .readFileSync(path.join(dir, `${k}.pub`), "utf8")
    .trim()
    .split(" ")
    .slice(0, 2)
    .join(" ");

beforeAll(() => {
  if (!HAVE) return;
  dir = tempDir("kbz-sshsig-");
  for (const [name, args] of KEYS)
    expect(spawnSync("ssh-keygen", ["-q", ...args, "-N", "", "-f", path.join(dir, name)]).status).toBe(0);
});

describe.skipIf(!HAVE)("sshsig fast path agrees with ssh-keygen", () => {
  test("each key type: a good signature is accepted by both; other bytes, another namespace, another principal or key: never accepted here", () => {
    for (const [k] of KEYS) {
      const msg = `kbz-signed-record: 1\ngate: "G1" ${k}\n`;
      const allowed = `ana@example.com ${pub(k)}\n`;
      const sig = sign(k, msg);
      expect({
        k,
        fast: fastVerify(msg, sig, "ana@example.com", allowed),
        keygen: keygen(msg, sig, "ana@example.com", allowed),
      }).toEqual({ k, fast: true, keygen: true });
      expect(fastVerify(msg.replace("G1", "G2"), sig, "ana@example.com", allowed)).toBeNull();
      expect(fastVerify(msg, sign(k, msg, "git"), "ana@example.com", allowed)).toBeNull();
      expect(fastVerify(msg, sig, "bob@example.com", allowed)).toBeNull();
      const other = KEYS.find(([o]) => o !== k)![0];
      expect(fastVerify(msg, sig, "ana@example.com", `ana@example.com ${pub(other)}\n`)).toBeNull();
      expect(keygen(msg, sig, "ana@example.com", `ana@example.com ${pub(other)}\n`)).toBe(false);
    }
  });

  test("options: namespaces naming kbz pass, naming others do not; cert-authority, validity and wildcards are left to ssh-keygen", () => {
    const msg = "kbz-signed-record: 1\n";
    const sig = sign("ed", msg);
    expect(fastVerify(msg, sig, "ana@example.com", `ana@example.com namespaces="git,kbz" ${pub("ed")}\n`)).toBe(true);
    expect(keygen(msg, sig, "ana@example.com", `ana@example.com namespaces="git,kbz" ${pub("ed")}\n`)).toBe(true);
    expect(fastVerify(msg, sig, "ana@example.com", `ana@example.com namespaces="git" ${pub("ed")}\n`)).toBeNull();
    expect(keygen(msg, sig, "ana@example.com", `ana@example.com namespaces="git" ${pub("ed")}\n`)).toBe(false);
    expect(
      fastVerify(msg, sig, "ana@example.com", `ana@example.com valid-before="20000101" ${pub("ed")}\n`),
    ).toBeNull();
    expect(fastVerify(msg, sig, "ana@example.com", `*@example.com ${pub("ed")}\n`)).toBeNull();
    expect(
      fastVerify(
        msg,
        sig.replace(/[A-Za-z](?=[A-Za-z0-9+/=]*\n-----END)/, "A"),
        "ana@example.com",
        `ana@example.com ${pub("ed")}\n`,
      ),
    ).toBeNull();
  });
});
