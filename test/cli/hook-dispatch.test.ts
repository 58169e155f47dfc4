// The Stop hook and dispatch waves (docs/formats.md#fixes cases 16, 18, 20, 21, 26), through the binary:
// waves are driven with `kbz wave`, the hook reads the same dispatch.json.
import { describe, expect, test, setDefaultTimeout } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { tempDir, writeTree } from "../helpers/kbz.ts";
import { decision, ledger, messageOf, reasonOf, stopHookIn } from "../helpers/hook.ts";
import { runCli } from "../helpers/cli.ts";

// Each case spawns the binary (and Node 16) several times; a loaded machine needs headroom.
setDefaultTimeout(60_000);

function scope(gates = ledger("leaf", [{ id: "G1", state: "met" }])) {
  const dir = tempDir();
  writeTree(dir, {
    ".unlazy/api/gates/leaf-a.md": gates,
    ".unlazy/api/gates/leaf-b.md": ledger("leaf b", [{ id: "G1", state: "manual-met" }]),
  });
  const wave = async (...args: string[]) => {
    const r = await runCli(["wave", ...args, "--scope", "api"], { cwd: dir });
    if (r.code !== 0 && args[0] !== "status") throw new Error(`kbz wave ${args.join(" ")}: ${r.stderr}`);
    return r;
  };
  const stop = (session = "s") => stopHookIn({ cwd: dir, session_id: session, hook_event_name: "Stop" });
  return { dir, wave, stop };
}

describe("hook stop with dispatch waves", () => {
  test("an open wave blocks an otherwise complete scope; after the full lifecycle the hook is silent", async () => {
    const s = scope();
    expect(decision(await s.stop())).toBeNull();
    await s.wave("open", "--wave", "ready-1", "--leaf", "leaf-a", "--leaf", "leaf-b");
    expect(reasonOf(await s.stop())).toContain("dispatch:ready-1 open (0/2 started)");
    await s.wave("start", "--wave", "ready-1", "--leaf", "leaf-a", "--handle", "h-a");
    await s.wave("start", "--wave", "ready-1", "--leaf", "leaf-b", "--handle", "h-b");
    await s.wave("seal", "--wave", "ready-1");
    expect(reasonOf(await s.stop())).toContain("dispatch:ready-1 sealed (0/2 returned)");
    await s.wave("return", "--wave", "ready-1", "--leaf", "leaf-b");
    await s.wave("return", "--wave", "ready-1", "--leaf", "leaf-a");
    const done = await s.stop();
    expect(done).toMatchObject({ code: 0, stdout: "" });
    expect(fs.existsSync(path.join(s.dir, ".unlazy/api/hook-state.json"))).toBe(false);
  });

  test("an abandoned wave with a fresh session: no block, HANDOFF REQUIRED with dispatch:<id>, the reason never leaks", async () => {
    const s = scope();
    await s.wave("open", "--wave", "ready-1", "--leaf", "leaf-a");
    await s.wave("abandon", "--wave", "ready-1", "--reason", "PRIVATE-WAVE-REASON host crashed");
    const msg = messageOf(await s.stop("fresh"));
    expect(msg).toBe("kbz [scope api]: HANDOFF REQUIRED: 1 abandoned item(s): dispatch:ready-1.");
    expect(msg).not.toContain("PRIVATE-WAVE-REASON");
  });

  test("an invalid dispatch state with injected newline, C1 and bidi text blocks as dispatch:PARSE without any of that text", async () => {
    const s = scope();
    fs.writeFileSync(
      path.join(s.dir, ".unlazy/api/dispatch.json"),
      JSON.stringify({ schema: 1, waves: { w: { state: "open", leaves: { "x\nINJECTED\u0085\u202eEVIL": {} } } } }),
    );
    const r = await s.stop();
    const reason = reasonOf(r);
    expect(reason).toContain("dispatch:PARSE invalid dispatch state");
    for (const bad of ["INJECTED", "EVIL", "\u0085", "\u202e", "\n"])
      expect([bad, reason.includes(bad)]).toEqual([bad, false]);
    expect(r.stdout.slice(0, -1)).not.toMatch(/[\u0000-\u001f\u0085\u202e]/);
  });

  test("a mixed unmet gate and abandoned wave: handoff on the first stop, release on the 7th still carrying it, no private reason", async () => {
    const s = scope(ledger("leaf", [{ id: "G1", state: "unmet" }]));
    await s.wave("open", "--wave", "ready-1", "--leaf", "leaf-a");
    await s.wave("abandon", "--wave", "ready-1", "--reason", "PRIVATE-WAVE-REASON");
    const first = reasonOf(await s.stop());
    expect(first).toContain("leaf-a:G1");
    expect(first).toEndWith("HANDOFF REQUIRED: 1 abandoned item(s): dispatch:ready-1.");
    for (let i = 2; i <= 6; i++) reasonOf(await s.stop());
    const released = messageOf(await s.stop());
    expect(released).toBe(
      "kbz: releasing after 6 blocks without gate progress [scope api]; 1 item(s) remain (leaf-a:G1). HANDOFF REQUIRED: 1 abandoned item(s): dispatch:ready-1.",
    );
    expect(released).not.toContain("PRIVATE-WAVE-REASON");
  });

  test("guard vs dispatch: a metadata-only edit is not progress, a real start transition is", async () => {
    const s = scope();
    await s.wave("open", "--wave", "ready-1", "--leaf", "leaf-a", "--leaf", "leaf-b");
    for (let i = 1; i <= 3; i++) reasonOf(await s.stop());
    const file = path.join(s.dir, ".unlazy/api/dispatch.json");
    const state = JSON.parse(fs.readFileSync(file, "utf8"));
    state.note = "metadata only";
    fs.writeFileSync(file, JSON.stringify(state, null, 2));
    // The edit must keep the state valid, or the comparison below would prove nothing.
    expect(reasonOf(await s.stop())).toContain("dispatch:ready-1 open");
    for (let i = 5; i <= 6; i++) reasonOf(await s.stop());
    expect(messageOf(await s.stop())).toStartWith("kbz: releasing after 6 blocks without gate progress [scope api];");
    await s.wave("start", "--wave", "ready-1", "--leaf", "leaf-a", "--handle", "h-a");
    expect(reasonOf(await s.stop())).toContain("dispatch:ready-1 open (1/2 started)");
  });
});
