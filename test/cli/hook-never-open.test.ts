// Issue 40: the Stop guard never fails open. Each numbered problem of the issue, on the binary, as
// the agent would do it from its own shell (CLAUDECODE=1, no terminal), with an unmet gate: the hook
// blocks naming the reason, `kbz status` exits non-zero, and the loud release still comes after six
// counted blocks of a real session (a transcript that grows). Every case failed on 571b8e3: it allowed.
import { afterEach, describe, expect, test, setDefaultTimeout } from "bun:test";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as os from "node:os";
import * as fs from "node:fs";
import * as path from "node:path";
import { kbz, tempDir, writeTree } from "../helpers/kbz.ts";
import { ledger, messageOf, reasonOf } from "../helpers/hook.ts";
import { guardDir } from "../../src/io/hook/guard.ts";
import {
  canSwitchUser,
  expectGuarded,
  newSession,
  NOBODY,
  sharedDir,
  stopOnce,
  type Session,
} from "../helpers/stop-session.ts";
import { needs } from "../helpers/needs.ts";
import { startCluster } from "../helpers/etcd-cluster.ts";

setDefaultTimeout(180_000);

const shared: string[] = [];
afterEach(() => {
  for (const d of shared.splice(0)) {
    execFileSync("chmod", ["-R", "u+rwX", d]);
    fs.rmSync(d, { recursive: true, force: true });
  }
});

const UNMET = ledger("solo", [{ id: "G1", state: "unmet" }]);

/** A repository with one unmet gate (a solo ledger, or `gates/<name>` when given), and a session on it. */
function repo(opts: { user?: boolean; gatesFolder?: boolean } = {}): Session {
  if (opts.user) {
    const base = sharedDir("kbz-guard-");
    shared.push(base);
    const dir = path.join(base, "repo");
    const store = path.join(base, "store");
    fs.mkdirSync(dir);
    fs.mkdirSync(store, { mode: 0o700 });
    writeTree(dir, opts.gatesFolder ? { "gates/solo.md": UNMET } : { "GATES.md": UNMET });
    execFileSync("chown", ["-R", `${NOBODY}:${NOBODY}`, dir]);
    return newSession(dir, store, { uid: NOBODY });
  }
  const dir = tempDir();
  const store = path.join(tempDir(), "store");
  fs.mkdirSync(store, { mode: 0o700 });
  writeTree(dir, opts.gatesFolder ? { "gates/solo.md": UNMET } : { "GATES.md": UNMET });
  return newSession(dir, store);
}

const userSkip = canSwitchUser();
if (userSkip !== null) console.log(`skip: the non-root cases of issue 40 need another user (${userSkip})`);

describe("issue 40 item 2: anything that throws blocks, naming it", () => {
  const settings: [string, (file: string) => void][] = [
    ["not valid JSON", (f) => fs.writeFileSync(f, "{ nope")],
    ["[]", (f) => fs.writeFileSync(f, "[]")],
    ["null", (f) => fs.writeFileSync(f, "null")],
    ["empty", (f) => fs.writeFileSync(f, "")],
    ["binary", (f) => fs.writeFileSync(f, Buffer.from([0, 1, 2, 0xff, 0xfe, 0x80, 0]))],
    ["over 64 KiB", (f) => fs.writeFileSync(f, `{"x":"${"a".repeat(70 * 1024)}"}`)],
    ["a directory", (f) => fs.mkdirSync(f)],
    ["a link", (f) => fs.symlinkSync("/etc/hostname", f)],
    ["a FIFO", (f) => execFileSync("mkfifo", [f])],
  ];
  for (const [what, make] of settings) {
    test(`.kbz/settings.json ${what}`, () => {
      const s = repo();
      fs.mkdirSync(path.join(s.dir, ".kbz"));
      make(path.join(s.dir, ".kbz", "settings.json"));
      expectGuarded(s, "settings.json");
    });
  }

  test(".kbz as a file", () => {
    const s = repo();
    fs.writeFileSync(path.join(s.dir, ".kbz"), "not a folder");
    expectGuarded(s, ".kbz");
  });

  test('an unreachable coordinator ({"coordinator":"etcd://127.0.0.1:1"}): the files are judged and block, waves and bindings unknown', () => {
    const s = repo();
    writeTree(s.dir, {
      ".kbz/settings.json": JSON.stringify({ coordinator: { url: "etcd://127.0.0.1:1", repository: "guard-test" } }),
    });
    expectGuarded(s, ["GATES:G1", "waves and bindings unknown"]);
  });

  test.skipIf(!needs("etcd"))(
    "a legitimately configured etcd that is paused: the files are judged and block, waves and bindings unknown",
    async () => {
      const cluster = await startCluster(1);
      try {
        const s = repo();
        writeTree(s.dir, {
          ".kbz/settings.json": JSON.stringify({ coordinator: { url: cluster.url, repository: "guard-test" } }),
        });
        cluster.members[0]!.proc!.kill("SIGSTOP");
        try {
          expectGuarded(s, ["GATES:G1", "waves and bindings unknown"]);
        } finally {
          cluster.members[0]!.proc!.kill("SIGCONT");
        }
      } finally {
        await cluster.stop();
      }
    },
  );

  describe.skipIf(userSkip !== null)(`as a user who is not root (${userSkip ?? "setpriv"})`, () => {
    for (const target of [".unlazy", "gates", ".kbz"]) {
      test(`chmod 000 on ${target}`, () => {
        const s = repo({ user: true, gatesFolder: target === "gates" });
        const p = path.join(s.dir, target);
        fs.mkdirSync(p, { recursive: true });
        if (target === ".kbz") fs.writeFileSync(path.join(p, "settings.json"), "{}");
        execFileSync("chown", ["-R", `${NOBODY}:${NOBODY}`, s.dir]);
        fs.chmodSync(p, 0o000);
        expectGuarded(s, target);
      });
    }
  });
});

describe("issue 40 item 3: time", () => {
  test("an INPUTS glob that backtracked for minutes (src/*a*a*…*b beside a 64-letter name) is judged at once: the gate blocks", () => {
    const s = repo();
    fs.mkdirSync(path.join(s.dir, "src"));
    fs.writeFileSync(path.join(s.dir, "src", "a".repeat(64)), "x");
    const inputs = "src/*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b";
    fs.writeFileSync(
      path.join(s.dir, "GATES.md"),
      ledger("solo", [{ id: "G1", state: "unmet" }]).replace(
        "  EXPECT: MARKER_OK",
        `  EXPECT: MARKER_OK\n  INPUTS: ${inputs}`,
      ),
    );
    expectGuarded(s, "GATES:G1");
  });
});

describe("issue 40 item 1: the guard's own state is kbz's, not the repository's", () => {
  const artifacts: [string, (dir: string) => void][] = [
    ["mkdir .unlazy-hook-state.json", (d) => fs.mkdirSync(path.join(d, ".unlazy-hook-state.json"))],
    [
      "a symlink at .unlazy-hook-state.json",
      (d) => fs.symlinkSync("/etc/hostname", path.join(d, ".unlazy-hook-state.json")),
    ],
    ["a FIFO at .unlazy-hook-state.json", (d) => execFileSync("mkfifo", [path.join(d, ".unlazy-hook-state.json")])],
    [
      "a hard link at .unlazy-hook-state.json",
      (d) => {
        fs.writeFileSync(path.join(d, "victim.json"), "{}");
        fs.linkSync(path.join(d, "victim.json"), path.join(d, ".unlazy-hook-state.json"));
      },
    ],
    ["touch .unlazy", (d) => fs.writeFileSync(path.join(d, ".unlazy"), "")],
    ["mkdir .unlazy with .unlazy/locks a file", (d) => writeTree(d, { ".unlazy/locks": "x" })],
    [
      ".unlazy/locks a link",
      (d) => {
        fs.mkdirSync(path.join(d, ".unlazy"));
        fs.symlinkSync("/tmp", path.join(d, ".unlazy/locks"));
      },
    ],
    [
      ".unlazy/locks a FIFO",
      (d) => {
        fs.mkdirSync(path.join(d, ".unlazy"));
        execFileSync("mkfifo", [path.join(d, ".unlazy/locks")]);
      },
    ],
    [
      "every lock in .unlazy/locks naming a live pid (1) and another host",
      (d) => {
        fs.mkdirSync(path.join(d, ".unlazy/locks"), { recursive: true });
        for (const f of [".unlazy-hook-state.json", "GATES.md"]) {
          const name = `${createHash("sha256")
            .update(path.join(fs.realpathSync(d), f))
            .digest("hex")
            .slice(0, 24)}.filelock`;
          const owner = {
            token: "a".repeat(24),
            pid: 1,
            host: f === "GATES.md" ? "elsewhere" : os.hostname(),
            target: f,
            at: new Date().toISOString(),
          };
          fs.writeFileSync(path.join(d, ".unlazy/locks", name), JSON.stringify(owner));
        }
      },
    ],
  ];
  for (const [what, make] of artifacts) {
    test(what, () => {
      const s = repo();
      make(s.dir);
      expectGuarded(s, "GATES:G1");
    });
  }

  describe.skipIf(userSkip !== null)(`chmod 555 as a user who is not root (${userSkip ?? "setpriv"})`, () => {
    for (const target of [".", ".unlazy", ".unlazy/locks", ".unlazy/api"]) {
      test(`chmod 555 on ${target}`, () => {
        const s = repo({ user: true });
        if (target.startsWith(".unlazy/api")) {
          fs.rmSync(path.join(s.dir, "GATES.md"));
          writeTree(s.dir, { ".unlazy/api/gates/leaf-1.md": UNMET.replace("# Gates: solo", "# Gates: leaf 1") });
        }
        fs.mkdirSync(path.join(s.dir, target === ".unlazy/locks" ? ".unlazy/locks" : ".unlazy"), { recursive: true });
        execFileSync("chown", ["-R", `${NOBODY}:${NOBODY}`, s.dir]);
        fs.chmodSync(path.join(s.dir, target), 0o555);
        expectGuarded(s, target.startsWith(".unlazy/api") ? "leaf-1:G1" : "GATES:G1");
      });
    }
  });
});

describe("issue 40 item 6: only the host's stops count toward the release", () => {
  test("six payloads the agent pipes for its own session (same transcript, unchanged) spend one count at most: the real stops still block, then the loud release", () => {
    const s = repo();
    for (let i = 0; i < 6; i++) expect(reasonOf(stopOnce(s, { grow: false }))).toContain("GATES:G1");
    // The same again without a transcript, and with one the agent grows itself: counted apart.
    for (let i = 0; i < 6; i++) reasonOf(stopOnce(s, { grow: false, payload: { transcript_path: undefined } }));
    const fake = path.join(s.dir, "fake.jsonl");
    for (let i = 0; i < 7; i++) {
      fs.appendFileSync(fake, "x\n");
      stopOnce(s, { grow: false, payload: { transcript_path: fake } });
    }
    // Only the first piped payload counted (nothing before it to compare the transcript with).
    for (let i = 2; i <= 6; i++) expect(reasonOf(stopOnce(s))).toContain("GATES:G1");
    expect(messageOf(stopOnce(s))).toContain("releasing after 6 blocks");
  });
});

describe("issue 40 item 5: the stop is judged where the work is", () => {
  test("mkdir -p sub/.unlazy && cd sub: a stop whose cwd is sub is judged at the outermost root and blocks", () => {
    const s = repo();
    fs.mkdirSync(path.join(s.dir, "sub/.unlazy"), { recursive: true });
    expectGuarded(s, "GATES:G1", { cwd: path.join(s.dir, "sub") });
  });

  test("the project the host names (CLAUDE_PROJECT_DIR) is judged when the stop's cwd is elsewhere", () => {
    const s = repo();
    const elsewhere = tempDir();
    expectGuarded(s, "GATES:G1", { cwd: elsewhere, env: { CLAUDE_PROJECT_DIR: s.dir } });
  });
});

describe("issue 40 item 4: the installed hook is the person's", () => {
  /** A repository with the hook installed by a person (the agent policy store of the run stands in for the install). */
  function installed(): { s: Session; home: string; env: Record<string, string> } {
    const s = repo();
    const home = tempDir();
    const env = { HOME: home, KBZ_HOME: path.join(home, ".kbz"), UNLAZY_APPROVAL_DIR: s.store };
    const first = kbzAs(s, ["hook", "install", "--agent", "claude"], env);
    expect(first.code).toBe(0);
    return { s, home, env };
  }
  function kbzAs(s: Session, args: string[], env: Record<string, string>, agent = true) {
    const e: Record<string, string | undefined> = { ...process.env, ...env, CLAUDECODE: agent ? "1" : undefined };
    return kbz(args, { cwd: s.dir, env: e });
  }
  const settings = (s: Session) => fs.readFileSync(path.join(s.dir, ".claude/settings.local.json"), "utf8");

  test("the agent re-pointing the hook at a scope (--scope Zzz) is refused, exit 1, the settings unchanged", () => {
    const { s, env } = installed();
    const before = settings(s);
    const r = kbzAs(s, ["hook", "install", "--agent", "claude", "--scope", "Zzz"], env);
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toContain("changing the installed Stop hook");
    expect(settings(s)).toBe(before);
    // And a pinned scope that does not exist blocks (a person's install or an old one).
    expectGuarded(s, 'no such scope "Zzz"', { args: ["--scope", "Zzz"] });
  });

  test("KBZ_HOME inside the repository is refused: no shim or command is written there", () => {
    const s = repo();
    const env = { HOME: tempDir(), KBZ_HOME: path.join(s.dir, ".k"), UNLAZY_APPROVAL_DIR: s.store };
    const r = kbzAs(s, ["hook", "install", "--agent", "claude"], env);
    expect(r.code).toBe(2);
    expect(r.stdout + r.stderr).toContain("inside the repository");
    expect(fs.existsSync(path.join(s.dir, ".k"))).toBe(false);
    expect(fs.existsSync(path.join(s.dir, ".claude"))).toBe(false);
  });

  test("kbz doctor dry-runs the installed command against the repository's real state and says what it would answer", () => {
    const s = repo();
    const home = tempDir();
    const env = { HOME: home, KBZ_HOME: path.join(home, ".kbz"), UNLAZY_APPROVAL_DIR: s.store };
    expect(kbzAs(s, ["hook", "install", "--agent", "claude", "--scope", "Zzz"], env, false).code).toBe(0);
    const r = kbzAs(s, ["doctor", "--agent", "claude", "--json"], env, false);
    const place = JSON.parse(r.stdout).places[0];
    expect(place.answer).toStartWith('block: kbz could not judge this stop: no such scope "Zzz"');
    // The dry run counted nothing in the real store.
    expect(fs.existsSync(guardDir(s.store, fs.realpathSync(s.dir)))).toBe(false);
  });

  test("the deny rules the install writes cover kbz hook install", () => {
    const { s } = installed();
    expect(JSON.parse(settings(s)).permissions.deny).toContain("Bash(kbz hook install*)");
  });
});
