import { describe, expect, test } from "bun:test";
import { invalidAggregate, type DispatchAggregate } from "../../../src/core/dispatch/waves.ts";
import { assess, decideStop, planStop, progressHash } from "../../../src/core/hook/decide.ts";
import { parseLedger } from "../../../src/core/ledger/parse.ts";
import { gateState, qualifiedId } from "../../../src/core/ledger/state.ts";
import type { LedgerEntry, Snapshot } from "../../../src/core/snapshot.ts";
import type { Target } from "../../../src/core/workspace/target.ts";

function snapshot(
  files: Record<string, string>,
  target: Partial<Target> = {},
  dispatch: DispatchAggregate | null = null,
): Snapshot {
  const ledgers: LedgerEntry[] = Object.entries(files).map(([name, text]) => {
    const ledger = parseLedger(text, name.replace(/\.md$/, ""));
    const problems = ledger.errors.map((e) => ({ file: name, ...e }));
    return { file: `/r/${name}`, display: name, stem: ledger.stem, ledger, problems, warnings: [], unreadable: false };
  });
  const gates = ledgers.flatMap((e) =>
    e.problems.length
      ? []
      : e.ledger!.gates.map((g) => ({
          qid: qualifiedId(e.ledger!, g),
          file: e.file,
          gate: g,
          state: gateState(g, e.ledger!),
        })),
  );
  return {
    target: {
      root: "/r",
      mode: "legacy",
      scope: null,
      files: ledgers.map((l) => l.file),
      discoveryErrors: [],
      ...target,
    },
    ledgers,
    gates,
    problems: [],
    dispatch,
  };
}

const UNMET = "# G\n\n- [ ] G1: one\n- [x] G2: two\n  EVIDENCE: looked at it\n";
const waves = (over: Partial<DispatchAggregate>): DispatchAggregate => ({
  resolved: [],
  blocking: [],
  abandoned: [],
  error: null,
  ...over,
});

describe("assess: what is outstanding", () => {
  test("unmet gates are listed by qualified id in file order; met gates only feed the progress state", () => {
    const a = assess(snapshot({ "a.md": UNMET, "b.md": "# G\n- [ ] X: x\n" }));
    expect(a.unmet).toEqual(["a:G1", "b:X"]);
    expect(a.resolved).toEqual(["a:G1=unmet", "a:G2=met", "b:X=unmet"]);
    expect(a.empty).toBe(false);
  });

  test("an invalid ledger contributes <stem>:PARSE with its first two errors and an unnumbered progress state", () => {
    const a = assess(snapshot({ "bad.md": "- [ ] nocolon\n- [ ] dup: a\n- [ ] dup: b\n  CHECK: x\n" }));
    expect(a.invalid).toEqual([
      "bad:PARSE line 1: gate needs an explicit ID followed by a colon; line 3: duplicate gate id dup (first declared on line 2)",
    ]);
    expect(a.resolved).toEqual(["bad:PARSE=invalid"]);
  });

  test("discovery errors fail closed as discovery:PARSE", () => {
    const a = assess(
      snapshot(
        {},
        {
          mode: "scope",
          scope: "api",
          discoveryErrors: [
            { path: "/r/.unlazy/api", message: "scope directory must be a real directory inside the repository" },
          ],
        },
      ),
    );
    expect(a.invalid).toEqual(["discovery:PARSE scope directory must be a real directory inside the repository"]);
    expect(a.empty).toBe(false);
  });

  test("dispatch: open waves are unmet, abandoned waves are handoffs, an invalid state fails closed", () => {
    const a = assess(
      snapshot(
        { "a.md": "# G\n- [x] G1: one\n  EVIDENCE: seen\n" },
        { scope: "api", mode: "scope" },
        waves({
          blocking: ["dispatch:ready-1 open"],
          abandoned: ["dispatch:w2"],
          resolved: ["dispatch:ready-1=open", "dispatch:w2=abandoned"],
        }),
      ),
    );
    expect(a.unmet).toEqual(["dispatch:ready-1 open"]);
    expect(a.handoffs).toEqual(["dispatch:w2"]);
    expect(planStop(a).kind).toBe("count");
    const bad = assess(
      snapshot({}, { scope: "api", mode: "scope" }, invalidAggregate("invalid dispatch state: \u202e\nEVIL")),
    );
    expect(bad.empty).toBe(false);
    expect(decideStop(bad, { ok: true, blocks: 1 })).toMatchObject({ decision: "block" });
    expect((decideStop(bad, { ok: true, blocks: 1 }) as { reason: string }).reason).not.toContain("EVIL");
  });

  test("an abandoned wave alone in an otherwise empty scope is reported, not ignored", () => {
    expect(
      planStop(assess(snapshot({}, { scope: "api", mode: "scope" }, waves({ abandoned: ["dispatch:w1"] })))),
    ).toEqual({
      kind: "clear",
      output: { systemMessage: "kbz [scope api]: HANDOFF REQUIRED: 1 abandoned item(s): dispatch:w1." },
    });
  });
});

describe("planStop and decideStop", () => {
  test("nothing at all, or everything met, clears silently", () => {
    expect(planStop(assess(snapshot({})))).toEqual({ kind: "clear", output: null });
    expect(planStop(assess(snapshot({ "a.md": "# G\n- [x] G1: one\n  EVIDENCE: seen\n" })))).toEqual({
      kind: "clear",
      output: null,
    });
  });

  test("a block lists the first five with a +k more tail; a release names the first four and the count", () => {
    const many = "# G\n" + Array.from({ length: 8 }, (_, i) => `- [ ] G${i}: t\n`).join("");
    const a = assess(snapshot({ "m.md": many }, { scope: "api", mode: "scope" }));
    const block = decideStop(a, { ok: true, blocks: 6 }) as { reason: string };
    expect(block.reason).toStartWith(
      "kbz [scope api]: 8 gate/ledger/dispatch item(s) need work: m:G0, m:G1, m:G2, m:G3, m:G4, +3 more. ",
    );
    expect(decideStop(a, { ok: true, blocks: 7 })).toEqual({
      systemMessage:
        "kbz: releasing after 6 blocks without gate progress [scope api]; 8 item(s) remain (m:G0, m:G1, m:G2, m:G3).",
    });
  });

  test("issue 40: a guard that could not count still blocks, and says the block was not counted", () => {
    const a = assess(snapshot({ "a.md": UNMET }));
    const r = decideStop(a, { ok: false, message: "lock timed out" }) as { decision: string; reason: string };
    expect(r.decision).toBe("block");
    expect(r.reason).toEndWith("(not counted toward the release: lock timed out)");
    const d = assess(
      snapshot(
        {},
        {
          discoveryErrors: [
            { path: "/r/gates", message: "gates directory must be a real directory inside the repository" },
          ],
        },
      ),
    );
    expect((decideStop(d, { ok: false, message: "x" }) as { reason: string }).reason).toContain(
      "gates directory must be a real directory inside the repository",
    );
  });

  test("the progress hash ignores order and bytes, and changes with any gate state", () => {
    const base = ["a:G1=unmet", "a:G2=met"];
    expect(progressHash(base)).toBe(progressHash([...base].reverse()));
    expect(progressHash(base)).toMatch(/^[0-9a-f]{24}$/);
    expect(progressHash(["a:G1=met", "a:G2=met"])).not.toBe(progressHash(base));
    const comment = assess(snapshot({ "a.md": UNMET + "\n<!-- note -->\n" }));
    expect(progressHash(comment.resolved)).toBe(progressHash(assess(snapshot({ "a.md": UNMET })).resolved));
  });

  test("regex engine wording never reaches the reason, so Bun and Node agree", () => {
    const a = assess(snapshot({ "r.md": "# G\n- [ ] G1: t\n  CHECK: x\n  EXPECT: /a(/\n" }));
    expect(a.invalid).toEqual(["r:PARSE line 4: gate G1: invalid EXPECT regex"]);
  });
});
