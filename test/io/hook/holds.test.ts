// The Stop hook's holds in the approval store (src/io/hook/holds.ts): appended by the hook, read
// only when a binding is judged; anything doubtful about the file makes nobody live.
import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { HELD_MS, holdsDir, readHolds, recordHolds } from "../../../src/io/hook/holds.ts";
import { sessionKey } from "../../../src/io/hook/guard.ts";
import { privateApprovalDir } from "../../helpers/approvals.ts";
import { tempDir } from "../../helpers/kbz.ts";

const NOW = Date.parse("2026-12-04T12:00:00.000Z");
const dayFile = (store: string, root: string, day = "2026-12-04") => path.join(holdsDir(store, root), `${day}.log`);

describe("holds", () => {
  test("a recorded stop makes its session live on each scope judged, for 24 h; other sessions and scopes are not", () => {
    const store = privateApprovalDir();
    const root = tempDir();
    recordHolds(store, root, ["api", "web"], "alpha", NOW);
    const h = readHolds(store, root, NOW + 1000);
    expect([
      h.liveOn("api", "alpha"),
      h.liveOn("web", "alpha"),
      h.liveOn("api", "beta"),
      h.liveOn("other", "alpha"),
    ]).toEqual([true, true, false, false]);
    expect(readHolds(store, root, NOW + HELD_MS + 1).liveOn("api", "alpha")).toBe(false);
    expect(readHolds(store, tempDir(), NOW).liveOn("api", "alpha")).toBe(false); // another root
    // The lines: time and key only, the file private.
    const text = fs.readFileSync(dayFile(store, root), "utf8");
    expect(text).toBe(
      `2026-12-04T12:00:00.000Z ${sessionKey("alpha", "api")}\n2026-12-04T12:00:00.000Z ${sessionKey("alpha", "web")}\n`,
    );
    expect(fs.statSync(dayFile(store, root)).mode & 0o777).toBe(0o600);
    expect(fs.statSync(holdsDir(store, root)).mode & 0o777).toBe(0o700);
  });

  test("yesterday's file counts within the window; older day files are deleted when read; a line from the future counts for nothing", () => {
    const store = privateApprovalDir();
    const root = tempDir();
    recordHolds(store, root, ["api"], "late", NOW - 13 * 3600 * 1000); // yesterday, 13 h ago
    recordHolds(store, root, ["api"], "old", NOW - 3 * HELD_MS);
    fs.appendFileSync(dayFile(store, root), `2026-12-05T12:00:00.000Z ${sessionKey("future", "api")}\n`, {
      mode: 0o600,
    });
    const h = readHolds(store, root, NOW);
    expect([h.liveOn("api", "late"), h.liveOn("api", "old"), h.liveOn("api", "future")]).toEqual([true, false, false]);
    expect(fs.readdirSync(holdsDir(store, root)).sort()).toEqual(["2026-12-03.log", "2026-12-04.log"]);
  });

  test("torn or foreign lines are skipped; a flooded, linked or shared file, or a shared directory, makes nobody live", () => {
    const store = privateApprovalDir();
    const root = tempDir();
    recordHolds(store, root, ["api"], "alpha", NOW);
    fs.appendFileSync(dayFile(store, root), "garbage\n2026-12-04T11:00:00.000Z 12ab\n");
    expect(readHolds(store, root, NOW).liveOn("api", "alpha")).toBe(true);
    // A flood of fake payloads: over 1 MiB, nobody is live (bindings to other sessions hide nothing).
    fs.appendFileSync(dayFile(store, root), `2026-12-04T11:00:00.000Z ${"0".repeat(24)}\n`.repeat(30_000));
    expect(readHolds(store, root, NOW).liveOn("api", "alpha")).toBe(false);
    fs.rmSync(dayFile(store, root));
    recordHolds(store, root, ["api"], "alpha", NOW);
    fs.chmodSync(dayFile(store, root), 0o644);
    expect(readHolds(store, root, NOW).liveOn("api", "alpha")).toBe(false);
    fs.chmodSync(dayFile(store, root), 0o600);
    fs.chmodSync(holdsDir(store, root), 0o777);
    expect(readHolds(store, root, NOW).liveOn("api", "alpha")).toBe(false);
    fs.chmodSync(holdsDir(store, root), 0o700);
    expect(readHolds(store, root, NOW).liveOn("api", "alpha")).toBe(true);
    const elsewhere = path.join(tempDir(), "x.log");
    fs.renameSync(dayFile(store, root), elsewhere);
    fs.symlinkSync(elsewhere, dayFile(store, root));
    expect(readHolds(store, root, NOW).liveOn("api", "alpha")).toBe(false);
    recordHolds(store, root, ["api"], "beta", NOW); // O_NOFOLLOW: nothing is written through the link
    expect(fs.readFileSync(elsewhere, "utf8")).not.toContain(sessionKey("beta", "api"));
  });

  test("a missing store answers nobody and recording creates it privately; an unwritable one leaves the answer alone", () => {
    const base = tempDir();
    fs.chmodSync(base, 0o700);
    const store = path.join(base, "store");
    const root = tempDir();
    expect(readHolds(store, root, NOW).liveOn("api", "alpha")).toBe(false);
    recordHolds(store, root, ["api"], "alpha", NOW);
    expect(fs.statSync(store).mode & 0o777).toBe(0o700);
    expect(readHolds(store, root, NOW).liveOn("api", "alpha")).toBe(true);
    const file = path.join(base, "a-file");
    fs.writeFileSync(file, "");
    expect(() => recordHolds(file, root, ["api"], "alpha", NOW)).not.toThrow();
  });
});
