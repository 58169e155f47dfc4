import { describe, expect, test } from "bun:test";
import { MAX_SESSIONS, countBlock, guardDir, normalizeState, sessionKey } from "../../../src/io/hook/guard.ts";

const H1 = "1".repeat(24);
const H2 = "2".repeat(24);

describe("progress guard state", () => {
  test("the session key is 24 hex and differs per session and per scope", () => {
    expect(sessionKey("s", "api")).toMatch(/^[0-9a-f]{24}$/);
    expect(sessionKey("s", "api")).not.toBe(sessionKey("s", "web"));
    expect(sessionKey("s", null)).not.toBe(sessionKey("t", null));
    expect(sessionKey("s", null)).toBe(sessionKey("s", "unscoped"));
  });

  test("the counts live in kbz's private store, keyed by the root, never in the repository", () => {
    expect(guardDir("/store", "/r")).toMatch(/^\/store\/kbz\/guard\/[0-9a-f]{24}$/);
    expect(guardDir("/store", "/r")).not.toBe(guardDir("/store", "/s"));
  });

  test("with a transcript, a block counts only when it grew since the last counted block", () => {
    const t0 = new Date("2026-01-01T00:00:00Z");
    const k = "k".repeat(24);
    let r = countBlock(normalizeState(null), k, H1, t0, { transcript: 100 });
    expect(r.blocks).toBe(1);
    r = countBlock(r.state, k, H1, t0, { transcript: 100 });
    expect(r.blocks).toBe(1);
    r = countBlock(r.state, k, H1, t0, { transcript: 140 });
    expect(r.blocks).toBe(2);
    expect(r.state.sessions[k]!.seen).toBe(140);
    r = countBlock(r.state, k, H1, t0, { transcript: 120 });
    expect(r.blocks).toBe(2);
  });

  test("normalisation keeps only well-formed entries and never throws", () => {
    for (const junk of [null, 3, "x", [], { sessions: [] }, { sessions: null }])
      expect(normalizeState(junk)).toEqual({ schema: 1, sessions: {} });
    const ok = { hash: H1, blocks: 2, updatedAt: "2026-01-01T00:00:00.000Z" };
    const s = normalizeState({
      sessions: {
        [H2]: ok,
        short: ok,
        ["a".repeat(24)]: { ...ok, blocks: 1.5 },
        ["b".repeat(24)]: { ...ok, hash: "X" },
        ["c".repeat(24)]: { ...ok, updatedAt: "never" },
      },
    });
    expect(s.sessions).toEqual({ [H2]: ok });
  });

  test("a new hash resets the count; the same hash increments it", () => {
    const t0 = new Date("2026-01-01T00:00:00Z");
    let s = normalizeState(null);
    let r = countBlock(s, "k".repeat(24), H1, t0);
    expect(r.blocks).toBe(1);
    r = countBlock(r.state, "k".repeat(24), H1, t0);
    expect(r.blocks).toBe(2);
    r = countBlock(r.state, "k".repeat(24), H2, t0);
    expect(r.blocks).toBe(1);
    s = r.state;
    expect(s.sessions["k".repeat(24)]).toEqual({ hash: H2, blocks: 1, updatedAt: t0.toISOString() });
  });

  test(`at most ${MAX_SESSIONS} sessions survive, the least recently updated go first`, () => {
    let s = normalizeState(null);
    for (let i = 0; i < MAX_SESSIONS + 5; i++)
      s = countBlock(s, i.toString(16).padStart(24, "0"), H1, new Date(Date.UTC(2026, 0, 1, 0, 0, i))).state;
    const keys = Object.keys(s.sessions);
    expect(keys).toHaveLength(MAX_SESSIONS);
    expect(keys).not.toContain((4).toString(16).padStart(24, "0"));
    expect(keys).toContain((5).toString(16).padStart(24, "0"));
  });
});
