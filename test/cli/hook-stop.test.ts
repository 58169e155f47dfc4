// `kbz hook stop` through the compiled binary: docs/formats.md#fixes cases 20-30, docs/formats.md#fixes case 22,
// docs/formats.md#fixes cases 8-13, and the Claude Code payload variants (ecosystem docs/formats.md#layout).
import { describe, expect, test, setDefaultTimeout } from "bun:test";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { guardDir, MAX_SESSIONS, sessionKey } from "../../src/io/hook/guard.ts";
import { hashTree, kbz, tempDir, writeTree } from "../helpers/kbz.ts";
import { findRoot } from "../../src/io/root.ts";
import { runCli } from "../helpers/cli.ts";
import {
  currentEvidence,
  decision,
  executedMarkers,
  ledger,
  messageOf,
  readState,
  storeState,
  reasonOf,
  stopHookIn,
  stopHookAsync,
} from "../helpers/hook.ts";

// Each case spawns the binary (and Node 16) several times; a loaded machine needs headroom.
setDefaultTimeout(60_000);

const twoScopes = () => {
  const dir = tempDir();
  writeTree(dir, {
    ".unlazy/api/gates/leaf-7.md": ledger("api leaf 7", [{ id: "G3", state: "unmet" }]),
    ".unlazy/web/gates/leaf-1.md": ledger("web leaf 1", [{ id: "G1", state: "met" }]),
  });
  return dir;
};

const solo = (
  gates = ledger("solo", [
    { id: "G1", state: "unmet" },
    { id: "G2", state: "unmet" },
  ]),
) => {
  const dir = tempDir();
  writeTree(dir, { "GATES.md": gates });
  return dir;
};

const stop = async (dir: string, session = "s1", args: string[] = [], extra: Record<string, unknown> = {}) =>
  await stopHookIn({ cwd: dir, session_id: session, hook_event_name: "Stop", ...extra }, { args });

describe("hook stop: which pipeline it judges (unlazy §8.1 20-21, 25-26, 30)", () => {
  test("a hook pinned to a completed scope is not blocked by another scope's unmet gates", async () => {
    const dir = twoScopes();
    expect(decision(await stop(dir, "s1", ["--scope", "web"]))).toBeNull();
  });

  test("a hook pinned to its own scope blocks, naming the qualified gate and the scope", async () => {
    const reason = reasonOf(await stop(twoScopes(), "s1", ["--scope", "api"]));
    expect(reason).toStartWith("kbz [scope api]: 1 gate/ledger/dispatch item(s) need work: leaf-7:G3.");
  });

  test("fixes unlazy bug: two scopes without a session binding are judged together (a second scope never hides the first)", async () => {
    expect(reasonOf(await stop(twoScopes(), "other"))).toStartWith(
      "kbz: 1 gate/ledger/dispatch item(s) need work: leaf-7:G3.",
    );
  });

  test("a session bound with kbz scope bind is judged in its scope (the other scope bound to another session)", async () => {
    const dir = twoScopes();
    fs.writeFileSync(path.join(dir, ".unlazy/web/gates/leaf-2.md"), ledger("web 2", [{ id: "W1", state: "unmet" }]));
    fs.writeFileSync(path.join(dir, ".unlazy/api/session"), "sess-other\n");
    expect((await runCli(["scope", "bind", "--scope", "web", "sess-abc"], { cwd: dir })).stdout).toContain(
      "bound session sess-abc to scope web",
    );
    expect(reasonOf(await stop(dir, "sess-abc"))).toStartWith(
      "kbz [scope web]: 1 gate/ledger/dispatch item(s) need work: leaf-2:W1.",
    );
    fs.writeFileSync(path.join(dir, ".unlazy/api/session"), "sess-api\n");
    expect(reasonOf(await stop(dir, "sess-api"))).toContain("[scope api]");
  });

  test("fixes unlazy bug: a session bound to one scope is still judged on a scope nobody is bound to (binding itself to an empty scope hid the unmet one)", async () => {
    const dir = twoScopes();
    fs.mkdirSync(path.join(dir, ".unlazy/empty"));
    fs.writeFileSync(path.join(dir, ".unlazy/empty/GATES.md"), ledger("empty", []));
    expect((await runCli(["scope", "bind", "--scope", "empty", "sess-abc"], { cwd: dir })).code).toBe(0);
    expect(reasonOf(await stop(dir, "sess-abc"))).toContain("leaf-7:G3");
  });

  test("a binding to a Codex session counts per session, not per turn: held on its scope, the scope is left to it; another session's allow names it", async () => {
    const dir = tempDir();
    writeTree(dir, { ".unlazy/api/gates/leaf-7.md": ledger("api leaf 7", [{ id: "G3", state: "unmet" }]) });
    fs.writeFileSync(path.join(dir, ".unlazy/api/session"), "cx-1\n");
    const codex = (session: string, turn: string) =>
      stopHookIn(
        {
          cwd: dir,
          session_id: session,
          turn_id: turn,
          hook_event_name: "Stop",
          stop_hook_active: false,
          last_assistant_message: "done",
        },
        { args: ["--agent", "codex"] },
      );
    expect(reasonOf(await codex("cx-1", "t1"))).toContain("leaf-7:G3");
    // A later turn of the bound session is the same session: still held; another session is not judged on api.
    expect(reasonOf(await codex("cx-1", "t2"))).toContain("leaf-7:G3");
    const other = await codex("cx-2", "t1");
    expect(messageOf(other)).toContain("scope api (bound to session cx-1): 1 item(s) open: leaf-7:G3");
  });

  test("several scopes judged together: an open wave in any of them blocks (each item names its scope)", async () => {
    const dir = twoScopes();
    const at = new Date().toISOString();
    fs.writeFileSync(
      path.join(dir, ".unlazy/web/dispatch.json"),
      JSON.stringify({
        schema: 1,
        waves: {
          w1: {
            leaves: ["leaf-1"],
            state: "open",
            openedAt: at,
            started: { "leaf-1": { handle: "agent-7", at } },
            returned: {},
          },
        },
      }),
    );
    const reason = reasonOf(await stop(dir, "sess-any"));
    expect(reason).toContain("leaf-7:G3");
    expect(reason).toContain("web/dispatch:w1 open (1/1 started)");
  });

  test("a FIFO session binding is skipped without being opened (a read would wait forever): that scope counts as unbound; the regular binding of another scope wins", async () => {
    for (const aKind of ["fifo", "file"]) {
      const dir = twoScopes();
      const aSession = path.join(dir, ".unlazy/api/session");
      if (aKind === "fifo") execFileSync("mkfifo", [aSession]);
      else fs.writeFileSync(aSession, "someone-else\n");
      fs.writeFileSync(path.join(dir, ".unlazy/web/gates/leaf-2.md"), ledger("web 2", [{ id: "W1", state: "unmet" }]));
      fs.writeFileSync(path.join(dir, ".unlazy/web/session"), "wanted\n");
      const reason = reasonOf(await stop(dir, "wanted"));
      // An unbound scope is every session's: api is judged too when its binding could not be read.
      if (aKind === "fifo")
        expect([aKind, reason]).toEqual([aKind, expect.stringMatching(/leaf-7:G3.*leaf-2:W1|leaf-2:W1.*leaf-7:G3/)]);
      else expect([aKind, reason]).toEqual([aKind, expect.stringContaining("[scope web]")]);
    }
  });

  test("UNLAZY_SCOPE pins the scope when no --scope is given", async () => {
    const r = await stopHookIn({ cwd: twoScopes(), session_id: "x" }, { env: { UNLAZY_SCOPE: "api" } });
    expect(reasonOf(r)).toContain("leaf-7:G3");
  });

  test("no gate files anywhere: prints nothing, exits 0, writes nothing", async () => {
    const dir = tempDir();
    const before = hashTree(dir);
    const r = await stop(dir);
    expect(r).toMatchObject({ code: 0, stdout: "", stderr: "" });
    expect(hashTree(dir)).toBe(before);
  });

  test("an invalid --scope in the installed command blocks naming it (issue 40: never an allow)", async () => {
    for (const args of [["--scope", "../bad"], ["--scope"], ["--scope=a/b"]]) {
      expect(reasonOf(await stop(twoScopes(), "s", args))).toStartWith(
        "kbz could not judge this stop: the installed hook has an invalid --scope value",
      );
    }
  });

  test("a pinned scope that does not exist blocks with the resolution error (issue 40 item 4)", async () => {
    expect(reasonOf(await stop(twoScopes(), "s", ["--scope", "gone"]))).toStartWith(
      'kbz could not judge this stop: no such scope "gone" under .unlazy/ (have: api, web).',
    );
  });

  test("the installer's marker and unknown tokens are ignored", async () => {
    expect(reasonOf(await stop(twoScopes(), "s", ["--unlazy-hook-v2", "--scope", "api", "--whatever"]))).toContain(
      "leaf-7:G3",
    );
  });
});

describe("hook stop: never executes, never leaks (unlazy §8.1 22-24)", () => {
  test("edited CHECK makes evidence stale: blocks on that gate only, no digest, nothing runs; a second edit does not reset; repair allows and deletes the state", async () => {
    const dir = tempDir();
    const check = `node -e "require('fs').writeFileSync('EXECUTED-G1','')"`;
    const file = path.join(dir, ".unlazy/api/gates/leaf-stale.md");
    writeTree(dir, {
      ".unlazy/api/gates/leaf-stale.md": ledger("stale", [
        { id: "G1", state: "met", check },
        { id: "G2", state: "met" },
      ]),
    });
    const original = fs.readFileSync(file, "utf8");
    fs.writeFileSync(file, original.replace(`CHECK: ${check}`, `CHECK: ${check} # edited`));
    const first = reasonOf(await stop(dir));
    expect(first).toStartWith("kbz [scope api]: 1 gate/ledger/dispatch item(s) need work: leaf-stale:G1.");
    expect(first).not.toContain("leaf-stale:G2");
    expect(first).not.toMatch(/[0-9a-f]{24}/);
    fs.writeFileSync(file, original.replace(`CHECK: ${check}`, `CHECK: ${check} # edited twice`));
    reasonOf(await stop(dir));
    expect(storeState(dir).sessions[sessionKey("s1", "api")]!.blocks).toBe(2);
    const repaired = original.replace(
      `EVIDENCE: ${currentEvidence(check, "MARKER_OK")}`,
      `EVIDENCE: ${currentEvidence(`${check} # edited twice`, "MARKER_OK")}`,
    );
    fs.writeFileSync(file, repaired.replace(`CHECK: ${check}`, `CHECK: ${check} # edited twice`));
    expect(decision(await stop(dir))).toBeNull();
    expect(storeState(dir).sessions[sessionKey("s1", "api")]).toBeUndefined();
    expect(executedMarkers(dir)).toEqual([]);
  });

  test("evidence with the current digest but a failed transcript stays unmet, and nothing executes", async () => {
    const dir = tempDir();
    const check = `node -e "require('fs').writeFileSync('EXECUTED-G1','')"`;
    const failed = currentEvidence(check, "MARKER_OK").replace("exit=0; EXPECT=matched", "exit=1; EXPECT=not matched");
    writeTree(dir, {
      "GATES.md": ledger("x", [{ id: "G1", state: "met", check }]).replace(/EVIDENCE: .*/, `EVIDENCE: ${failed}`),
    });
    expect(reasonOf(await stop(dir))).toContain("GATES:G1");
    expect(executedMarkers(dir)).toEqual([]);
  });

  test("an abandoned gate allows with HANDOFF REQUIRED and its id, never its free-form reason", async () => {
    const dir = tempDir();
    writeTree(dir, {
      ".unlazy/api/gates/leaf-7.md": ledger("x", [
        { id: "G1", state: "met" },
        { id: "G3", state: "abandoned" },
      ]),
    });
    const msg = messageOf(await stop(dir));
    expect(msg).toBe("kbz [scope api]: HANDOFF REQUIRED: 1 abandoned item(s): leaf-7:G3.");
    expect(msg).not.toContain("secret-private-reason");
  });

  test("mixed unmet and abandoned: the block carries the handoff; the 7th stop releases and still carries it, without the reason", async () => {
    const dir = solo(
      ledger("x", [
        { id: "G1", state: "unmet" },
        { id: "G2", state: "abandoned" },
      ]),
    );
    const first = reasonOf(await stop(dir));
    expect(first).toEndWith(" HANDOFF REQUIRED: 1 abandoned item(s): GATES:G2.");
    for (let i = 2; i <= 6; i++) reasonOf(await stop(dir));
    const released = messageOf(await stop(dir));
    expect(released).toBe(
      "kbz: releasing after 6 blocks without gate progress; 1 item(s) remain (GATES:G1). HANDOFF REQUIRED: 1 abandoned item(s): GATES:G2.",
    );
    expect(released).not.toContain("secret-private-reason");
  });
});

describe("hook stop: the progress guard (unlazy §8.1 27-29, §8.3 22, §8.4 8-9)", () => {
  test("counters are per scope: six api blocks, the 7th api stop releases, web still blocks", async () => {
    const dir = twoScopes();
    fs.writeFileSync(path.join(dir, ".unlazy/web/gates/leaf-2.md"), ledger("web 2", [{ id: "W1", state: "unmet" }]));
    for (let i = 1; i <= 6; i++) reasonOf(await stop(dir, "s", ["--scope", "api"]));
    expect(messageOf(await stop(dir, "s", ["--scope", "api"]))).toBe(
      "kbz: releasing after 6 blocks without gate progress [scope api]; 1 item(s) remain (leaf-7:G3).",
    );
    expect(storeState(dir).sessions[sessionKey("s", "api")]!.blocks).toBe(7);
    expect(reasonOf(await stop(dir, "s", ["--scope", "web"]))).toContain("leaf-2:W1");
  });

  test("the guard tracks state, not bytes: a cosmetic comment after six blocks still releases on the 7th", async () => {
    const dir = solo();
    for (let i = 1; i <= 6; i++) reasonOf(await stop(dir));
    fs.appendFileSync(path.join(dir, "GATES.md"), "\n<!-- reflowed, no state change -->\n");
    expect(messageOf(await stop(dir))).toStartWith("kbz: releasing after 6 blocks without gate progress;");
  });

  test("meeting one gate resets the guard: after 3 blocks a gate is met, and 4 more stops all block", async () => {
    const dir = solo();
    for (let i = 1; i <= 3; i++) reasonOf(await stop(dir));
    fs.writeFileSync(
      path.join(dir, "GATES.md"),
      ledger("solo", [
        { id: "G1", state: "met" },
        { id: "G2", state: "unmet" },
      ]),
    );
    for (let i = 1; i <= 4; i++) expect(reasonOf(await stop(dir))).toContain("GATES:G2");
    expect(storeState(dir).sessions[sessionKey("s1", null)]!.blocks).toBe(4);
  });

  test("malformed sibling session entries are dropped; the valid session blocks and counts", async () => {
    const dir = solo();
    const file = path.join(guardDir(process.env.UNLAZY_APPROVAL_DIR!, fs.realpathSync(dir)), "state.json");
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const good = sessionKey("s1", null);
    fs.writeFileSync(
      file,
      JSON.stringify({
        schema: 1,
        sessions: {
          zz: { hash: "x", blocks: 1, updatedAt: "2026-01-01T00:00:00Z" },
          ["a".repeat(24)]: { hash: "b".repeat(24), blocks: -1, updatedAt: "2026-01-01T00:00:00Z" },
          ["c".repeat(24)]: "not an object",
          ["d".repeat(24)]: { hash: "e".repeat(24), blocks: 2, updatedAt: "not a date" },
          ["f".repeat(24)]: { hash: "0".repeat(24), blocks: 3, updatedAt: "2026-01-01T00:00:00Z" },
        },
      }),
      { mode: 0o600 },
    );
    const r = await stop(dir);
    expect(reasonOf(r)).not.toContain("could not update");
    const state = readState(file);
    expect(Object.keys(state.sessions).sort()).toEqual(["f".repeat(24), good].sort());
    expect(Object.values(state.sessions).every((e) => typeof e === "object" && e.blocks >= 1)).toBe(true);
  });

  // Concurrent stops serialize on the state file's lock, which a stop waits for at most 10 s before
  // it fails open; each holder reads, counts and writes (with fsync) the state. 16 at once keep
  // the last waiter well inside that bound on a loaded 2-core machine with a slow disk; 64 did not
  // (one in 64 failed open at a load of 30). What is tested is exact counting under contention.
  test("three rounds of 16 concurrent stops for one session count exactly 16 blocks each, with no fail-open", async () => {
    const CONCURRENT = 16;
    const dir = solo();
    for (const round of ["r1", "r2", "r3"]) {
      // Each payload is a file on stdin: the hook's bound on an unfinished payload (3 s) measures
      // the writer, and 64 starts on a loaded 2-core machine must not be mistaken for one.
      const payloads = tempDir("kbz-payloads-");
      const runs = await Promise.all(
        Array.from({ length: CONCURRENT }, (_, i) =>
          stopHookAsync({ cwd: dir, session_id: round }, { payloadFile: path.join(payloads, `${i}.json`) }),
        ),
      );
      // One assertion over every run, so a failure prints which runs and what they said.
      const odd = runs
        .map((r, i) => ({
          i,
          code: r.code,
          stdinError: r.stdinError,
          stderr: r.stderr,
          lines: r.stdout.split("\n").filter(Boolean).length,
          failOpen: (r.stderr + r.stdout).includes("could not update"),
          said: r.stdout.slice(0, 300),
        }))
        .filter((r) => r.code !== 0 || r.stdinError || r.stderr !== "" || r.lines !== 1 || r.failOpen);
      expect({ round, odd }).toEqual({ round, odd: [] });
      expect({ round, blocks: storeState(dir).sessions[sessionKey(round, null)]!.blocks }).toEqual({
        round,
        blocks: CONCURRENT,
      });
    }
  }, 120_000);

  test("sessions count separately; meeting the gates clears one session's entry, and no ledgers the other's", async () => {
    const dir = solo();
    for (let i = 0; i < 3; i++) {
      reasonOf(await stop(dir, "alpha"));
      reasonOf(await stop(dir, "beta"));
    }
    const s = storeState(dir).sessions;
    expect(s[sessionKey("alpha", null)]!.blocks).toBe(3);
    expect(s[sessionKey("beta", null)]!.blocks).toBe(3);
    fs.writeFileSync(
      path.join(dir, "GATES.md"),
      ledger("solo", [
        { id: "G1", state: "met" },
        { id: "G2", state: "manual-met" },
      ]),
    );
    expect(decision(await stop(dir, "alpha"))).toBeNull();
    expect(Object.keys(storeState(dir).sessions)).toEqual([sessionKey("beta", null)]);
    fs.rmSync(path.join(dir, "GATES.md"));
    expect(decision(await stop(dir, "beta"))).toBeNull();
    expect(Object.keys(storeState(dir).sessions)).toEqual([]);
  });

  test(`the state keeps at most the ${MAX_SESSIONS} most recently updated sessions`, async () => {
    const dir = solo();
    const file = path.join(guardDir(process.env.UNLAZY_APPROVAL_DIR!, fs.realpathSync(dir)), "state.json");
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const sessions: Record<string, unknown> = {};
    for (let i = 0; i < MAX_SESSIONS + 6; i++) {
      sessions[i.toString(16).padStart(24, "0")] = {
        hash: "1".repeat(24),
        blocks: 1,
        updatedAt: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
      };
    }
    fs.writeFileSync(file, JSON.stringify({ schema: 1, sessions }), { mode: 0o600 });
    reasonOf(await stop(dir, "newest"));
    const keys = Object.keys(readState(file).sessions);
    expect(keys).toHaveLength(MAX_SESSIONS);
    expect(keys).toContain(sessionKey("newest", null));
    expect(keys).not.toContain("0".repeat(24)); // the oldest were dropped
    expect(keys).toContain((MAX_SESSIONS + 5).toString(16).padStart(24, "0"));
  });
});

describe("hook stop: Claude Code payload variants (ecosystem §1)", () => {
  test("stop_hook_active does not release the gate; the guard counts it like any stop", async () => {
    const dir = solo();
    reasonOf(await stop(dir, "s1"));
    reasonOf(await stop(dir, "s1", [], { stop_hook_active: true }));
    expect(storeState(dir).sessions[sessionKey("s1", null)]!.blocks).toBe(2);
  });

  test("SubagentStop is decided like Stop and shares the parent session's counter", async () => {
    const dir = solo();
    for (let i = 0; i < 3; i++)
      reasonOf(
        await stop(dir, "parent", [], { hook_event_name: "SubagentStop", agent_id: `a${i}`, agent_type: "Explore" }),
      );
    for (let i = 0; i < 3; i++) reasonOf(await stop(dir, "parent"));
    expect(messageOf(await stop(dir, "parent"))).toStartWith("kbz: releasing after 6 blocks");
  });

  test("sessionId is accepted for session_id; a missing id counts as one anonymous session", async () => {
    const dir = solo();
    reasonOf(await stopHookIn({ cwd: dir, sessionId: "camel" }));
    reasonOf(await stopHookIn({ cwd: dir }));
    const s = storeState(dir).sessions;
    expect(s[sessionKey("camel", null)]!.blocks).toBe(1);
    expect(s[sessionKey("anonymous", null)]!.blocks).toBe(1);
  });

  test("a payload without cwd is judged in the process working directory", async () => {
    const dir = solo();
    expect(reasonOf(await stopHookIn({ session_id: "x" }, { cwd: dir }))).toContain("GATES:G1");
  });

  test("fixes unlazy gap: inside a git work tree, a stop from a subdirectory is judged at the nearest ledger root", async () => {
    const dir = solo();
    fs.mkdirSync(path.join(dir, ".git"));
    fs.mkdirSync(path.join(dir, "src/deep"), { recursive: true });
    expect(reasonOf(await stop(path.join(dir, "src/deep")))).toContain("GATES:G1");
    expect(Object.keys(storeState(dir).sessions)).toHaveLength(1);
    // A source folder that happens to be called gates/ holds no ledgers and is not a root.
    writeTree(dir, { "src/deep/gates/index.ts": "export {};\n" });
    expect(reasonOf(await stop(path.join(dir, "src/deep")))).toContain("GATES:G1");
  });

  test("fixes unlazy bug: outside a git work tree, a stop from a subfolder is judged at the root kbz status finds (one findRoot)", async () => {
    const dir = solo();
    fs.mkdirSync(path.join(dir, "src"));
    expect(fs.existsSync(path.join(dir, ".git"))).toBe(false);
    const sub = path.join(dir, "src");
    const status = kbz(["status"], { cwd: sub });
    expect([status.code, status.stdout]).toEqual([1, expect.stringContaining("UNMET: 2 (met: 0)")]);
    expect(reasonOf(await stop(sub))).toContain("GATES:G1");
    expect(findRoot(fs.realpathSync(sub))).toBe(fs.realpathSync(dir));
  });

  test("the search stops at the work tree's top: ledgers above the repository are never used", async () => {
    const outer = solo();
    const repo = path.join(outer, "repo");
    fs.mkdirSync(path.join(repo, ".git"), { recursive: true });
    fs.mkdirSync(path.join(repo, "src"));
    expect(decision(await stop(path.join(repo, "src")))).toBeNull();
  });

  test("a cwd that does not exist blocks naming it (issue 40: a stop kbz cannot judge blocks)", async () => {
    const dir = tempDir();
    expect(reasonOf(await stop(path.join(dir, "nope")))).toStartWith(
      `kbz could not judge this stop: the stop's folder is not an existing directory: ${path.join(dir, "nope")}.`,
    );
  });

  test("a real-shaped Stop payload: block, progress resets, release after six, allow when all gates are met", async () => {
    const dir = solo();
    const payload = (active: boolean) => ({
      session_id: "9f1c2f5e-6a3b-4c1e-8d2a-2b7e4d9c0a11",
      transcript_path: path.join(dir, "transcript.jsonl"),
      cwd: dir,
      permission_mode: "default",
      hook_event_name: "Stop",
      stop_hook_active: active,
      last_assistant_message: "All done! \u202e (really)",
      background_tasks: [],
      session_crons: [],
    });
    expect(reasonOf(await stopHookIn(payload(false)))).toContain(
      "2 gate/ledger/dispatch item(s) need work: GATES:G1, GATES:G2.",
    );
    reasonOf(await stopHookIn(payload(true)));
    fs.writeFileSync(
      path.join(dir, "GATES.md"),
      ledger("solo", [
        { id: "G1", state: "met" },
        { id: "G2", state: "unmet" },
      ]),
    );
    for (let i = 1; i <= 6; i++)
      expect(reasonOf(await stopHookIn(payload(true)))).toContain(
        "1 gate/ledger/dispatch item(s) need work: GATES:G2.",
      );
    expect(messageOf(await stopHookIn(payload(true)))).toBe(
      "kbz: releasing after 6 blocks without gate progress; 1 item(s) remain (GATES:G2).",
    );
    fs.writeFileSync(
      path.join(dir, "GATES.md"),
      ledger("solo", [
        { id: "G1", state: "met" },
        { id: "G2", state: "manual-met" },
      ]),
    );
    const allow = await stopHookIn(payload(true));
    expect(allow).toMatchObject({ code: 0, stdout: "" });
    expect(Object.keys(storeState(dir).sessions)).toEqual([]);
  });
});

describe("hook stop: invalid and hostile inputs fail closed or open exactly as specified (unlazy §8.4 11-13)", () => {
  const victimDir = () => {
    const outside = tempDir("kbz-victim-");
    fs.writeFileSync(path.join(outside, "GATES.md"), "# Gates: victim\n\n- [ ] V1: SECRET-VICTIM-TEXT\n");
    return outside;
  };

  test("a parse error blocks with <stem>:PARSE and the first two errors, without engine-specific regex text", async () => {
    const dir = solo(
      "# Gates: bad\n\n- [ ] G1 no colon\n- [ ] G2: fine\n  EXPECT: /a(/\n  CHECK: x\n- [ ] G3: t\n  CHECK: y\n",
    );
    const reason = reasonOf(await stop(dir));
    expect(reason).toContain(
      "1 gate/ledger/dispatch item(s) need work: GATES:PARSE line 3: gate needs an explicit ID followed by a colon; line 5: gate G2: invalid EXPECT regex.",
    );
  });

  test("an unreadable ledger (invalid UTF-8) blocks as <stem>:PARSE unreadable", async () => {
    const dir = solo();
    fs.writeFileSync(path.join(dir, "gates.md"), "x");
    fs.mkdirSync(path.join(dir, "gates"));
    fs.writeFileSync(path.join(dir, "gates/leaf.md"), Buffer.from([0x2d, 0x20, 0xff, 0xfe, 0x0a]));
    expect(reasonOf(await stop(dir))).toContain("leaf:PARSE unreadable: invalid UTF-8 at byte 2");
  });

  test("a pinned absent scope blocks with no such scope", async () => {
    const dir = tempDir();
    writeTree(dir, { "GATES.md": ledger("x", [{ id: "G1", state: "unmet" }]) });
    expect(reasonOf(await stop(dir, "s", ["--scope", "api"]))).toContain('no such scope "api"');
  });

  test("a pinned scope that is a symlink to an outside directory blocks with the discovery error and never reads the outside", async () => {
    const dir = tempDir();
    const outside = victimDir();
    const outsideBefore = hashTree(outside);
    fs.mkdirSync(path.join(dir, ".unlazy"));
    fs.symlinkSync(outside, path.join(dir, ".unlazy", "api"));
    const r = await stop(dir, "s", ["--scope", "api"]);
    expect(reasonOf(r)).toContain("discovery:PARSE scope directory must be a real directory inside the repository");
    expect(r.stdout).not.toContain("SECRET-VICTIM-TEXT");
    expect(hashTree(outside)).toBe(outsideBefore);
  });

  test("a FIFO, symlinked GATES.md or symlinked gates/ blocks without waiting on the FIFO or reading the victim", async () => {
    const outside = victimDir();
    const cases: [string, (dir: string) => void][] = [
      ["fifo", (d) => execFileSync("mkfifo", [path.join(d, "GATES.md")])],
      ["symlinked GATES.md", (d) => fs.symlinkSync(path.join(outside, "GATES.md"), path.join(d, "GATES.md"))],
      ["symlinked gates/", (d) => fs.symlinkSync(outside, path.join(d, "gates"))],
    ];
    for (const [name, make] of cases) {
      const dir = tempDir();
      make(dir);
      const r = await stop(dir);
      expect([name, reasonOf(r)]).toEqual([name, expect.stringContaining("gate/ledger/dispatch item(s) need work")]);
      expect(r.stdout).not.toContain("SECRET-VICTIM-TEXT");
    }
  });

  test("issue 40: a hard-linked, symlinked or FIFO .unlazy-hook-state.json is not kbz's: the stop blocks and counts, the victim is untouched", async () => {
    const makers: [string, (file: string, victim: string) => void][] = [
      ["hard link", (f, v) => fs.linkSync(v, f)],
      ["symlink", (f, v) => fs.symlinkSync(v, f)],
      ["fifo", (f) => execFileSync("mkfifo", [f])],
    ];
    for (const [name, make] of makers) {
      const dir = solo();
      const victim = path.join(tempDir("kbz-victim-"), "victim.json");
      fs.writeFileSync(victim, '{"schema":1,"sessions":{}}');
      const file = path.join(dir, ".unlazy-hook-state.json");
      make(file, victim);
      const r = await stop(dir);
      expect([name, reasonOf(r)]).toEqual([name, expect.stringContaining("GATES:G1")]);
      expect([name, storeState(dir).sessions[sessionKey("s1", null)]?.blocks]).toEqual([name, 1]);
      expect(fs.readFileSync(victim, "utf8")).toBe('{"schema":1,"sessions":{}}');
      if (name === "fifo") expect(fs.lstatSync(file).isFIFO()).toBe(true);
    }
  });

  test("a repository .unlazy-hook-state.json is never read: a forged count releases nothing", async () => {
    const dir = solo();
    const file = path.join(dir, ".unlazy-hook-state.json");
    fs.writeFileSync(
      file,
      JSON.stringify({
        schema: 1,
        sessions: {
          [sessionKey("s1", null)]: { hash: "0".repeat(24), blocks: 99, updatedAt: new Date().toISOString() },
        },
      }),
    );
    reasonOf(await stop(dir));
    expect(storeState(dir).sessions[sessionKey("s1", null)]!.blocks).toBe(1);
  });

  test("repository text in ids and messages reaches the output without control or bidi characters", async () => {
    const dir = tempDir();
    writeTree(dir, { "gates/evil\u202e\u001b[31m.md": "# Gates: x\n\n- [ ] G1 \u2028 no colon\n" });
    const r = await stop(dir);
    expect(r.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028-\u202e]/);
    expect(reasonOf(r)).toContain("PARSE");
  });
});
