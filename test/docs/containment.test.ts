// The README's containment section, line by line (issue 28): every bullet of what a sandboxed
// CHECK can and cannot reach is run on the binary, as root and as another user (uid 65534 through
// setpriv), and a bullet without a claim here fails the test. The paragraph's lifetime claims
// (signals, SIGKILL of kbz) are test/cli/contained-lifetime.test.ts.
import { afterAll, describe, expect, test, setDefaultTimeout } from "bun:test";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as path from "node:path";
import { BIN, REPO } from "../helpers/kbz.ts";
import { needs } from "../helpers/needs.ts";
import { setApprovalPolicy } from "../helpers/approvals.ts";

setDefaultTimeout(120_000);

const usable = { ok: needs("bwrap") };
const root = process.getuid?.() === 0;

/** The bullets of the README's `## Containment` section. */
function bullets(): string[] {
  const text = fs.readFileSync(path.join(REPO, "README.md"), "utf8");
  const section = text.slice(
    text.indexOf("## Containment\n"),
    text.indexOf("\n## ", text.indexOf("## Containment\n") + 5),
  );
  return section
    .split("\n- ")
    .slice(1)
    .map((b) => b.split("\n\n")[0]!.replace(/\s+/g, " ").trim());
}

interface Claim {
  /** The start of the bullet this claim proves. */
  bullet: string;
  /** Gates (id → CHECK printing "ok" when the thing is reached) and whether each must pass. */
  gates: (ctx: Ctx) => { id: string; check: string; passes: boolean }[];
}

interface Ctx {
  outside: string; // a folder outside the repository, writable by the user
  home: string; // the real $HOME kbz is given, with a planted file
  tmp: string; // a folder in the real /tmp with a planted file
  tcp: number; // a loopback listener
  sock: string; // a unix listener under $XDG_RUNTIME_DIR
  runSock: string | null; // a unix listener under /run (root only)
}

const connect = (p: string) =>
  `${process.execPath} -e "require('net').connect('${p}').on('connect',()=>{console.log('ok');process.exit(0)}).on('error',()=>process.exit(1))"`;

const CLAIMS: Claim[] = [
  {
    bullet: "can read the filesystem, and write the repository",
    gates: () => [
      { id: "READWRITE", check: "cat /etc/passwd >/dev/null && echo x > written.txt && echo ok", passes: true },
    ],
  },
  {
    bullet: "cannot write anywhere else, nor the repository's `.git`",
    gates: (c) => [
      { id: "WRITEOUT", check: `echo x > ${c.outside}/w && echo ok`, passes: false },
      { id: "WRITEGIT", check: "echo x >> .git/config && echo ok", passes: false },
      { id: "HOOK", check: "echo true > .git/hooks/pre-commit && echo ok", passes: false },
    ],
  },
  {
    bullet: "cannot reach the network, nor a host unix socket",
    gates: (c) => [
      { id: "TCP", check: `bash -c 'exec 3<>/dev/tcp/127.0.0.1/${c.tcp}' && echo ok`, passes: false },
      { id: "XDGSOCK", check: connect(c.sock), passes: false },
      ...(c.runSock ? [{ id: "RUNSOCK", check: connect(c.runSock), passes: false }] : []),
    ],
  },
  {
    bullet: "cannot see the real `$HOME` or `/tmp`",
    gates: (c) => [
      { id: "HOME", check: `cat ${c.home}/planted && echo ok`, passes: false },
      { id: "TMP", check: `cat ${c.tmp}/planted && echo ok`, passes: false },
    ],
  },
  {
    bullet: "holds no capability, root included",
    gates: () => [
      { id: "NOCAPS", check: "grep -q 'CapEff:.0000000000000000' /proc/self/status && echo ok", passes: true },
      { id: "REMOUNT", check: "mount -o remount,rw / 2>/dev/null && echo ok", passes: false },
    ],
  },
];

const made: string[] = [];
afterAll(() => {
  for (const d of made) fs.rmSync(d, { recursive: true, force: true });
});
function dirIn(base: string, owner: number | null): string {
  const d = fs.realpathSync(fs.mkdtempSync(path.join(base, "kbz-readme-")));
  made.push(d);
  if (owner !== null) fs.chownSync(d, owner, owner);
  fs.chmodSync(d, 0o755);
  return d;
}

/** Run every claim's gates in one sandboxed `kbz check`, as `uid`; the state of each gate. */
async function runAs(
  uid: number | null,
): Promise<{ states: Record<string, string>; expected: Record<string, boolean> }> {
  const own = uid ?? 0;
  const base = dirIn("/var/tmp", own);
  const repo = path.join(base, "repo");
  const home = path.join(base, "home");
  const store = path.join(base, "store");
  const outside = path.join(base, "outside");
  const xdg = path.join(base, "xdg");
  const tmp = dirIn("/tmp", own);
  for (const d of [repo, home, store, outside, xdg]) fs.mkdirSync(d, { mode: 0o700 });
  fs.writeFileSync(path.join(home, "planted"), "secret\n");
  // The test approves from a non-terminal: unlazy's consent model (the person policy is tested elsewhere).
  setApprovalPolicy(store, "agent");
  fs.writeFileSync(path.join(tmp, "planted"), "secret\n");
  spawnSync("git", ["init", "-q", repo]);
  // The binary, where the user can run it (the checkout may sit in a private folder).
  const bin = path.join(base, "kbz");
  fs.copyFileSync(BIN, bin);
  fs.chmodSync(bin, 0o755);
  const servers: net.Server[] = [];
  const listen = async (where: number | string) => {
    const s = net.createServer((c) => c.end());
    servers.push(s);
    await new Promise<void>((r) => (typeof where === "number" ? s.listen(where, "127.0.0.1", r) : s.listen(where, r)));
    return s;
  };
  const tcp = ((await listen(0)).address() as net.AddressInfo).port;
  const sock = path.join(xdg, "agent.sock");
  await listen(sock);
  let runSock: string | null = null;
  if (root) {
    const runDir = dirIn("/run", null);
    runSock = path.join(runDir, "s.sock");
    await listen(runSock);
  }
  const ctx: Ctx = { outside, home, tmp, tcp, sock, runSock };
  const gates = CLAIMS.flatMap((c) => c.gates(ctx));
  const ledger = gates
    .map((g) => `- [ ] ${g.id}: ${g.id}\n  CHECK: ${g.check}\n  EXPECT: ok\n  EVIDENCE: pending\n`)
    .join("\n");
  fs.writeFileSync(path.join(repo, "GATES.md"), `# Gates: containment\n\n${ledger}`);
  spawnSync("chown", ["-R", `${own}:${own}`, base, tmp]);
  for (const s of [sock, runSock]) if (s) fs.chmodSync(s, 0o777);
  const env = { PATH: "/usr/bin:/bin", HOME: home, UNLAZY_APPROVAL_DIR: store, XDG_RUNTIME_DIR: xdg, TMPDIR: "/tmp" };
  const asUser = uid === null ? [] : ["setpriv", `--reuid=${uid}`, `--regid=${uid}`, "--clear-groups"];
  const run = (args: string[]) =>
    Bun.spawn([...asUser, bin, ...args], { cwd: repo, env, stdout: "pipe", stderr: "pipe" });
  try {
    const c = run(["check", "--approve", "--sandbox"]);
    await c.exited;
    const s = run(["status", "--json"]);
    const out = await new Response(s.stdout).text();
    await s.exited;
    const states: Record<string, string> = {};
    for (const g of JSON.parse(out).gates) states[g.id] = g.state;
    return { states, expected: Object.fromEntries(gates.map((g) => [g.id, g.passes])) };
  } finally {
    for (const s of servers) s.close();
  }
}

describe.skipIf(!usable.ok)("README: containment, line by line", () => {
  test("every bullet of the section has a claim here, and every claim a bullet", () => {
    const bs = bullets();
    expect(bs.length).toBe(CLAIMS.length);
    for (const c of CLAIMS) expect(bs.some((b) => b.startsWith(c.bullet))).toBe(true);
  });

  test.skipIf(!root)("as root: each bullet holds", async () => {
    const { states, expected } = await runAs(null);
    for (const [id, passes] of Object.entries(expected))
      expect(`${id}: ${states[id]}`).toBe(`${id}: ${passes ? "met" : states[id] === "met" ? "unmet" : states[id]}`);
  });

  test.skipIf(!root)("as another user (uid 65534): each bullet holds", async () => {
    // bwrap as an unprivileged user needs user namespaces; say so rather than pass quietly.
    const probe = spawnSync(
      "setpriv",
      ["--reuid=65534", "--regid=65534", "--clear-groups", "bwrap", "--ro-bind", "/", "/", "true"],
      { encoding: "utf8" },
    );
    if (probe.status !== 0) {
      console.log(`skipping the as-a-user half: bwrap cannot run as uid 65534 here: ${probe.stderr.trim()}`);
      return;
    }
    const { states, expected } = await runAs(65534);
    for (const [id, passes] of Object.entries(expected))
      expect(`${id}: ${states[id]}`).toBe(`${id}: ${passes ? "met" : states[id] === "met" ? "unmet" : states[id]}`);
  });
});
