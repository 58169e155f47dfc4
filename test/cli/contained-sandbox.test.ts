// Issue 28 (contained means contained, round 2), the sandbox items: each test is named after the
// item it proves and fails on 33d2fc2 (KBZ_TEST_BIN=/work/tools/kbz-old-33d2fc2 runs them there).
// Root is what items 1 and 3 are about; they skip with that reason as another user.
import { afterAll, describe, expect, test, setDefaultTimeout } from "bun:test";
import * as fs from "node:fs";
import * as net from "node:net";
import * as path from "node:path";
import { spawnSync } from "node:child_process";
import { kbz, tempDir, writeTree } from "../helpers/kbz.ts";
import { agentEnv } from "../helpers/approvals.ts";
import { token } from "../helpers/procs.ts";
import { needs } from "../helpers/needs.ts";

setDefaultTimeout(120_000);

const usable = { ok: needs("bwrap") };
const root = process.getuid?.() === 0;
if (usable.ok && !root)
  console.log("skip: test/cli/contained-sandbox.test.ts's root tests run as root only (CI runs as root)");
if (!root) console.log("skipping the as-root sandbox tests: they need uid 0");

const outside: string[] = [];
/** A directory outside the repository and outside /tmp (the sandbox's /tmp is private anyway). */
function outsideDir(base = "/var/tmp"): string {
  const d = fs.realpathSync(fs.mkdtempSync(path.join(base, "kbz-i28-")));
  outside.push(d);
  return d;
}
afterAll(() => {
  for (const d of outside) fs.rmSync(d, { recursive: true, force: true });
});

const gate = (id: string, check: string, expectText: string) =>
  `- [ ] ${id}: ${id} outcome\n  CHECK: ${check}\n  EXPECT: ${expectText}\n  EVIDENCE: pending\n`;

function repo(gates: string, extra: Record<string, string> = {}) {
  const dir = tempDir();
  writeTree(dir, { "GATES.md": `# Gates: i28\n\n${gates}`, ...extra });
  const env = agentEnv({ HOME: outsideDir() });
  const run = (args: string[], more: Record<string, string> = {}) => kbz(args, { cwd: dir, env: { ...env, ...more } });
  return { dir, env, run };
}

const git = (dir: string, ...a: string[]) =>
  spawnSync("git", ["-C", dir, "-c", "user.email=t@t", "-c", "user.name=t", ...a], { encoding: "utf8" });

describe.skipIf(!usable.ok || !root)("issue 28 as root", () => {
  test("item 1: root keeps every capability in --sandbox → a sandboxed CHECK run by root has no capability and cannot remount / to overwrite a host file", () => {
    const out = outsideDir();
    const host = path.join(out, "host.txt");
    fs.writeFileSync(host, "original\n");
    const { run } = repo(
      gate("CAPS", "grep -q 'CapEff:.0000000000000000' /proc/self/status && echo NO-CAPABILITY", "NO-CAPABILITY") +
        "\n" +
        gate(
          "REMOUNT",
          `umount -l /tmp 2>/dev/null; mount -o remount,bind,rw / 2>/dev/null; echo pwned > ${host} && echo WROTE`,
          "WROTE",
        ),
    );
    const r = run(["check", "--approve", "--sandbox", "--json"]);
    const gates = JSON.parse(r.stdout);
    expect(JSON.stringify(gates)).toContain("CAPS");
    expect(fs.readFileSync(host, "utf8")).toBe("original\n");
    const s = JSON.parse(run(["status", "--json"]).stdout);
    const state = (id: string) => s.gates.find((g: { id: string }) => g.id === id)?.state;
    expect(state("CAPS")).toBe("met");
    expect(state("REMOUNT")).not.toBe("met");
  });

  test("item 3: host unix sockets are reachable → a sandboxed CHECK cannot connect to a listener under /run or $XDG_RUNTIME_DIR; unsandboxed it can", async () => {
    const runDir = outsideDir("/run");
    const xdg = outsideDir();
    const servers = [path.join(runDir, "s.sock"), path.join(xdg, "agent.sock")].map((p) => {
      const server = net.createServer((c) => c.end());
      return { p, server, up: new Promise<void>((res) => server.listen(p, res)) };
    });
    await Promise.all(servers.map((s) => s.up));
    try {
      const connect = (p: string) =>
        `${process.execPath} -e "require('net').connect('${p}').on('connect',()=>{console.log('CONNECTED');process.exit(0)}).on('error',()=>process.exit(1))"`;
      // The runtime the CHECK connects with is shown read-only (issue 42 item 3: the sandbox shows the
      // system folders only, unless the settings add more), so a failure is the socket's, not a missing program.
      const readable = JSON.stringify({ readable: [path.dirname(fs.realpathSync(process.execPath))] });
      const { run } = repo(
        gate("RUN", connect(servers[0]!.p), "CONNECTED") + "\n" + gate("XDG", connect(servers[1]!.p), "CONNECTED"),
        { ".kbz/settings.json": readable },
      );
      const sandboxed = run(["check", "--approve", "--sandbox"], { XDG_RUNTIME_DIR: xdg });
      expect(sandboxed.stdout).not.toContain("not found");
      expect(sandboxed.code).toBe(1);
      expect(sandboxed.stdout).toContain("FAIL GATES:RUN");
      expect(sandboxed.stdout).toContain("FAIL GATES:XDG");
      expect(run(["check", "--approve"], { XDG_RUNTIME_DIR: xdg }).code).toBe(0);
    } finally {
      for (const s of servers) s.server.close();
    }
  });
});

describe.skipIf(!usable.ok)("issue 28, any user", () => {
  test("item 2: a sandboxed CHECK plants code that runs outside → .git is read-only inside, and kbz's own git calls run no fsmonitor, hook or GIT_* config", () => {
    const out = outsideDir();
    const planted = path.join(out, "planted");
    const t = token();
    const { dir, run } = repo(
      gate(
        "PLANT",
        `git config core.fsmonitor 'touch ${planted}-fsmonitor'; printf '#!/bin/sh\\ntouch ${planted}-hook\\n' > .git/hooks/post-checkout; chmod +x .git/hooks/post-checkout; echo planted-${t}`,
        `planted-${t}`,
      ),
    );
    git(dir, "init", "-q");
    git(dir, "add", "GATES.md");
    git(dir, "commit", "-qm", "ledger");
    const config = fs.readFileSync(path.join(dir, ".git", "config"), "utf8");
    run(["check", "--approve", "--sandbox"]);
    expect(fs.readFileSync(path.join(dir, ".git", "config"), "utf8")).toBe(config);
    expect(fs.existsSync(path.join(dir, ".git", "hooks", "post-checkout"))).toBe(false);
    // Whatever .git holds, kbz's probe (git diff / ls-files) runs none of it, nor config from GIT_*.
    fs.appendFileSync(path.join(dir, ".git", "config"), `[core]\n\tfsmonitor = touch ${planted}-fsmonitor\n`);
    writeTree(dir, { "work.txt": "the work\n" });
    run(["check", "--approve"]);
    run(["check", "--probe", "--approve"], {
      GIT_CONFIG_COUNT: "1",
      GIT_CONFIG_KEY_0: "core.fsmonitor",
      GIT_CONFIG_VALUE_0: `touch ${planted}-env`,
    });
    expect(fs.readdirSync(out)).toEqual([]);
  });
});
