// docs/formats.md#scheduling-consistency: every input of `kbz next` must be unchanged once the whole scope is
// read. The leaf reads skip their own after-read lstat; this pass is what catches a change.
import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { readScheduleFacts } from "../../../src/ops/facts.ts";
import { fixtureCopy } from "../../helpers/kbz.ts";

function snapshotWith(change: (scopeDir: string) => void) {
  const root = fs.realpathSync(fixtureCopy("next-golden"));
  const scopeDir = path.join(root, ".unlazy", "api");
  const read = () =>
    readScheduleFacts({
      root,
      scope: "api",
      slots: 2,
      order: "natural",
      beforeConsistencyCheck: () => change(scopeDir),
    });
  return { read, scopeDir };
}

/** A change made during the first read only: the second read (issue 28 item 10) judges the scope as it is then. */
function once(change: (scopeDir: string) => void): (scopeDir: string) => void {
  let done = false;
  return (dir) => {
    if (!done) change(dir);
    done = true;
  };
}

const later = (f: string) => {
  const t = fs.statSync(f).mtime.getTime() / 1000 + 5;
  fs.utimesSync(f, t, t);
};

describe("the consistency pass of kbz next", () => {
  test("an untouched scope gives the same fingerprint twice", () => {
    const { read } = snapshotWith(() => {});
    expect(read().fingerprint).toBe(read().fingerprint);
  });

  test("a leaf ledger rewritten with other text after it was read: inputs changed, rerun", () => {
    const { read } = snapshotWith((dir) => fs.appendFileSync(path.join(dir, "gates", "leaf-2.md"), "\n"));
    expect(read).toThrow("busy: the scope changed while reading (inputs changed); retry");
  });

  test("a leaf ledger rewritten in place with the same text is re-read and accepted", () => {
    const { read } = snapshotWith((dir) => {
      const f = path.join(dir, "gates", "leaf-2.md");
      fs.writeFileSync(f, fs.readFileSync(f));
      later(f);
    });
    expect(read().fingerprint).toBe(snapshotWith(() => {}).read().fingerprint);
  });

  test("a leaf ledger renamed over with the same text changes its folder: inputs changed, rerun", () => {
    const { read } = snapshotWith((dir) => {
      const f = path.join(dir, "gates", "leaf-2.md");
      fs.writeFileSync(f + ".tmp", fs.readFileSync(f));
      fs.renameSync(f + ".tmp", f);
    });
    expect(read).toThrow("busy: the scope changed while reading (inputs changed); retry");
  });

  test("issue 28 item 10: a scope that changed during one read only is read again and answered, not refused", () => {
    let n = 0;
    const { read } = snapshotWith((dir) => {
      if (n++ === 0) fs.appendFileSync(path.join(dir, "gates", "leaf-2.md"), "\n");
    });
    expect(read().plan.rows.length).toBeGreaterThan(0);
    expect(n).toBe(2);
  });

  test("only the times of PLAN.md moved: the re-read text matches, no error", () => {
    const { read } = snapshotWith((dir) => later(path.join(dir, "PLAN.md")));
    expect(read().plan.rows.length).toBeGreaterThan(0);
  });

  test("a leaf ledger swapped for a link after it was read: read again, the link is refused", () => {
    const { read } = snapshotWith(
      once((dir) => {
        const f = path.join(dir, "gates", "leaf-1.md");
        fs.renameSync(f, f + ".moved");
        fs.symlinkSync(f + ".moved", f);
      }),
    );
    expect(read).toThrow("leaf-1.md must be one unchanged regular single-link file");
  });

  test("ACCESS.json removed after it was read: refused", () => {
    const { read } = snapshotWith((dir) => fs.rmSync(path.join(dir, "ACCESS.json")));
    expect(read).toThrow();
  });

  test("an optional file that appears after the scope was read: read again, judged as it is", () => {
    const { read } = snapshotWith(
      once((dir) => fs.writeFileSync(path.join(dir, "dispatch.json"), '{"schema":1,"waves":[]}\n')),
    );
    expect(read).toThrow("invalid dispatch state: waves must be an object");
  });

  test("a new leaf ledger after the scope was read: read again, refused as not in PLAN", () => {
    const { read } = snapshotWith(
      once((dir) => fs.writeFileSync(path.join(dir, "gates", "leaf-9.md"), "OWNS: src/9/**\n")),
    );
    expect(read).toThrow("PLAN leaves must match scope leaf ledgers exactly (not in PLAN: leaf-9.md)");
  });

  test("the gates folder swapped for another on every read: busy, retry", () => {
    let n = 0;
    const { read } = snapshotWith((dir) => {
      fs.cpSync(path.join(dir, "gates"), path.join(dir, `gates.copy${n}`), { recursive: true });
      fs.renameSync(path.join(dir, "gates"), path.join(dir, `gates.old${n}`));
      fs.renameSync(path.join(dir, `gates.copy${n++}`), path.join(dir, "gates"));
    });
    expect(read).toThrow("busy: the scope changed while reading (inputs changed); retry");
  });
});
