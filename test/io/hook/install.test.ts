import { describe, expect, test } from "bun:test";
import { hookCommand, isOurs, planSettings, shapeProblem, shellWords } from "../../../src/io/hook/install.ts";
import { TARGETS } from "../../../src/core/hook/targets.ts";

const OWN = "/opt/kbz/hooks/stop-hook.mjs";
const C = TARGETS.claude;
const cmd = hookCommand(["/opt/kbz/dist/kbz", "hook", "stop"], "claude", "api");
const want = C.handler(cmd, "Stop");
/** Claude's three events, each with its one group of ours. */
const everywhere = (h: any): any => ({
  Stop: [{ hooks: [h] }],
  SubagentStop: [{ hooks: [h] }],
  TaskCompleted: [{ hooks: [h] }],
});

describe("ownership of a Stop handler", () => {
  const ours = (command: unknown, args?: unknown) =>
    isOurs({ type: "command", command, ...(args ? { args } : {}) } as any, [OWN]);

  test("the marker makes it ours, in the command string or in exec-form args", () => {
    expect(ours("'/usr/bin/node' '/x/stop-hook.mjs' --unlazy-hook-v2 --scope api")).toBe(true);
    expect(ours("/opt/kbz/dist/kbz", ["hook", "stop", "--unlazy-hook-v2"])).toBe(true);
  });

  test("legacy installs are recognised by path: this installation, the v2.0 skill path, or --unlazy with a scripts/stop-hook.mjs", () => {
    expect(ours(`node ${OWN}`)).toBe(true);
    expect(ours('node "C:\\Users\\me\\.claude\\skills\\unlazy\\scripts\\stop-hook.mjs"')).toBe(true);
    expect(ours("node /somewhere/scripts/stop-hook.mjs --unlazy")).toBe(true);
    expect(ours("node /somewhere/scripts/stop-hook.mjs")).toBe(false);
  });

  test("foreign --unlazy-* options, substrings and non-string commands are not ours", () => {
    expect(ours(`node ${OWN} --unlazy-helper`)).toBe(false);
    expect(ours("node", [OWN, "'--unlazy-helper'"])).toBe(false);
    expect(ours("node x-unlazy-hook-v2.mjs")).toBe(false);
    expect(ours("node --unlazyish scripts/stop-hook.mjs")).toBe(false);
    expect(ours(42)).toBe(false);
  });
});

describe("the settings edit", () => {
  const other = { type: "command", command: "node other.mjs" };

  test("shape problems are named", () => {
    expect(shapeProblem([], C)).toBe("the root is not a JSON object");
    expect(shapeProblem({ hooks: [] }, C)).toBe("hooks is not an object");
    expect(shapeProblem({ hooks: { Stop: {} } }, C)).toBe("hooks.Stop is not an array");
    expect(shapeProblem({ hooks: { Stop: [{ hooks: {} }] } }, C)).toBe(
      "hooks.Stop[0] is not an object with a hooks array",
    );
    expect(shapeProblem({ hooks: { Stop: [{ hooks: [null] }] } }, C)).toBe("hooks.Stop[0].hooks[0] is not an object");
    expect(shapeProblem({ hooks: { PreToolUse: "anything" }, other: 1 }, C)).toBeNull();
  });

  test("each host's own shape rules: Codex's closed root, Cursor's version 1 and flat list, Gemini's AfterAgent", () => {
    expect(shapeProblem({ $schema: "x", hooks: {} }, TARGETS.codex)).toBe(
      'unknown root key "$schema" (codex accepts only description and hooks)',
    );
    expect(shapeProblem({ description: "d", hooks: { Stop: [] } }, TARGETS.codex)).toBeNull();
    expect(shapeProblem({ version: 2, hooks: {} }, TARGETS.cursor)).toBe("version is 2, not 1");
    expect(shapeProblem({ version: 1, hooks: { stop: [{ command: "x" }, "y"] } }, TARGETS.cursor)).toBe(
      "hooks.stop[1] is not an object",
    );
    expect(shapeProblem({ hooks: { AfterAgent: [{ hooks: 1 }] } }, TARGETS.gemini)).toBe(
      "hooks.AfterAgent[0] is not an object with a hooks array",
    );
  });

  test("Cursor's entries are flat, one per event, and a new file gets version 1; uninstall keeps version", () => {
    const c = hookCommand(["/k"], "cursor", null);
    const w = TARGETS.cursor.handler(c, "stop");
    const plan = planSettings({}, TARGETS.cursor, c, [OWN]);
    expect(plan).toEqual({
      kind: "write",
      removed: 0,
      settings: { version: 1, hooks: { stop: [w], subagentStop: [w] } },
    });
    expect(planSettings({ version: 1, hooks: { stop: [w], subagentStop: [w] } }, TARGETS.cursor, null, [OWN])).toEqual({
      kind: "write",
      removed: 2,
      settings: { version: 1 },
    });
  });

  test("Copilot's entries hold the command under bash, in kbz's own file", () => {
    const c = hookCommand(["/k"], "copilot", null);
    const plan = planSettings({}, TARGETS.copilot, c, [OWN]);
    const h = { type: "command", bash: c, timeoutSec: 20 };
    expect(plan).toEqual({
      kind: "write",
      removed: 0,
      settings: { version: 1, hooks: { agentStop: [h], subagentStop: [h] } },
    });
    expect(
      planSettings({ version: 1, hooks: { agentStop: [h], subagentStop: [h] } }, TARGETS.copilot, c, [OWN]),
    ).toEqual({ kind: "unchanged", why: "already-installed" });
  });

  test("install appends one group per event after the kept ones and keeps every other key and the events' order", () => {
    const plan = planSettings(
      { model: "x", hooks: { PreToolUse: [], Stop: [{ matcher: "m", hooks: [other] }] } },
      C,
      cmd,
      [OWN],
    );
    expect(plan).toEqual({
      kind: "write",
      removed: 0,
      settings: {
        model: "x",
        hooks: {
          PreToolUse: [],
          Stop: [{ matcher: "m", hooks: [other] }, { hooks: [want as any] }],
          SubagentStop: [{ hooks: [want as any] }],
          TaskCompleted: [{ hooks: [want as any] }],
        },
      },
    });
  });

  test("duplicates collapse to one entry per event; an exact single entry per event is left alone", () => {
    const dup = { hooks: { ...everywhere(want), Stop: [{ hooks: [want as any] }, { hooks: [want as any, other] }] } };
    const plan = planSettings(dup, C, cmd, [OWN]);
    expect(plan.kind === "write" && plan.removed).toBe(4);
    expect(planSettings({ hooks: everywhere(want) }, C, cmd, [OWN])).toEqual({
      kind: "unchanged",
      why: "already-installed",
    });
    // One event missing (a hook removed by hand) is written again.
    const { TaskCompleted: _gone, ...partial } = everywhere(want);
    expect(planSettings({ hooks: partial }, C, cmd, [OWN]).kind).toBe("write");
  });

  test("uninstall drops emptied groups, emptied events and an empty hooks object", () => {
    expect(planSettings({ hooks: everywhere(want) }, C, null, [OWN])).toEqual({
      kind: "write",
      removed: 3,
      settings: {},
    });
    expect(planSettings({ hooks: { Stop: [{ hooks: [other] }] } }, C, null, [OWN])).toEqual({
      kind: "unchanged",
      why: "nothing-to-remove",
    });
  });

  test("the command is one POSIX-quoted string that splits back into the same words", () => {
    const cmd = hookCommand(["/a b/kbz", "it's", "hook", "stop"], "codex", "api");
    expect(cmd).toBe(`'/a b/kbz' 'it'\\''s' hook stop --agent codex --unlazy-hook-v2 --scope api`);
    expect(shellWords(cmd)).toEqual([
      "/a b/kbz",
      "it's",
      "hook",
      "stop",
      "--agent",
      "codex",
      "--unlazy-hook-v2",
      "--scope",
      "api",
    ]);
  });
});
