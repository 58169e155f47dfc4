import { describe, expect, test } from "bun:test";
import { displayCommand, isOurs, managedHandler, planSettings, shapeProblem } from "../../../src/core/hook/install.ts";

const OWN = "/opt/kbz/hooks/stop-hook.mjs";
const want = managedHandler("/opt/kbz/dist/kbz", ["hook", "stop"], "api");

describe("ownership of a Stop handler", () => {
  const ours = (command: unknown, args?: unknown) => isOurs({ type: "command", command, ...(args ? { args } : {}) } as any, [OWN]);

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
    expect(shapeProblem([])).toBe("the settings root is not a JSON object");
    expect(shapeProblem({ hooks: [] })).toBe("hooks is not an object");
    expect(shapeProblem({ hooks: { Stop: {} } })).toBe("hooks.Stop is not an array");
    expect(shapeProblem({ hooks: { Stop: [{ hooks: {} }] } })).toBe("hooks.Stop[0] is not an object with a hooks array");
    expect(shapeProblem({ hooks: { Stop: [{ hooks: [null] }] } })).toBe("hooks.Stop[0].hooks[0] is not an object");
    expect(shapeProblem({ hooks: { PreToolUse: "anything" }, other: 1 })).toBeNull();
  });

  test("install appends one group after the kept ones and keeps every other key", () => {
    const plan = planSettings({ model: "x", hooks: { PreToolUse: [], Stop: [{ matcher: "m", hooks: [other] }] } }, want, [OWN]);
    expect(plan).toEqual({
      kind: "write",
      removed: 0,
      settings: { model: "x", hooks: { PreToolUse: [], Stop: [{ matcher: "m", hooks: [other] }, { hooks: [want as any] }] } },
    });
  });

  test("duplicates collapse to one entry; an exact single entry is left alone", () => {
    const dup = { hooks: { Stop: [{ hooks: [want as any] }, { hooks: [want as any, other] }] } };
    const plan = planSettings(dup, want, [OWN]);
    expect(plan.kind === "write" && plan.removed).toBe(2);
    expect(planSettings({ hooks: { Stop: [{ hooks: [want as any] }] } }, want, [OWN])).toEqual({ kind: "unchanged", why: "already-installed" });
  });

  test("uninstall drops emptied groups, an empty Stop and an empty hooks object", () => {
    expect(planSettings({ hooks: { Stop: [{ hooks: [want as any] }] } }, null, [OWN])).toEqual({ kind: "write", removed: 1, settings: {} });
    expect(planSettings({ hooks: { Stop: [{ hooks: [other] }] } }, null, [OWN])).toEqual({ kind: "unchanged", why: "nothing-to-remove" });
  });

  test("commands are shown POSIX-quoted", () => {
    expect(displayCommand({ command: "/a b/kbz", args: ["it's"] })).toBe(`'/a b/kbz' 'it'\\''s'`);
  });
});
