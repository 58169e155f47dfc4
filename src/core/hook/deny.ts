// The person's acts, refused to the agent by the hosts' own permission rules before kbz even runs
// (issue 32): approving an oracle (`kbz approve`, `kbz check --approve`), signing a manual gate,
// revoking, pruning or setting the approvals policy, and removing the guard. kbz refuses them to an
// agent itself too (the person policy); these rules are a second wall where the host has one:
// Claude Code `permissions.deny`, Gemini CLI and Qwen Code `tools.exclude`, Codex's execpolicy
// rules (`prefix_rule(..., decision = "forbidden")`). Copilot CLI has deny options only on its
// command line (`--deny-tool`), nothing kbz can write: `COPILOT_DENY` lists them for the person.
// Prefix rules cannot see a flag in any position; Claude Code's wildcards can.
import type { HostName } from "./targets.ts";
import { kbz } from "../text/command.ts";

/** Each person-only command as the words it starts with. */
export const PERSON_ONLY: string[][] = [
  ["kbz", "approve"],
  ["kbz", "check", "--approve"],
  ["kbz", "sign"],
  ["kbz", "approvals", "revoke"],
  ["kbz", "approvals", "prune"],
  ["kbz", "approvals", "policy"],
  ["kbz", "hook", "install", "--uninstall"],
  // Issue 40: any change to the installed hook is the person's (kbz refuses it to an agent too).
  ["kbz", "hook", "install"],
];

/** Claude Code Bash rules: the bare name and any absolute path to kbz, the flag forms anywhere on the line. */
function claudeRules(): string[] {
  const rules: string[] = [];
  for (const prog of ["kbz", "*/kbz"]) {
    rules.push(`Bash(${prog} approve)`, `Bash(${prog} approve *)`);
    rules.push(`Bash(${prog} *--approve*)`);
    rules.push(`Bash(${prog} sign)`, `Bash(${prog} sign *)`);
    for (const sub of ["revoke", "prune", "policy"]) rules.push(`Bash(${prog} approvals ${sub}*)`);
    rules.push(`Bash(${prog} hook *--uninstall*)`);
    // Issue 40: any change to the installed hook is the person's (kbz refuses it to an agent too).
    rules.push(`Bash(${prog} hook install*)`);
  }
  return rules;
}

/** Where a host keeps its deny rules inside the settings file kbz edits, and the rules; null: none there. */
export function denyRules(host: HostName): { path: [string, string]; rules: string[] } | null {
  switch (host) {
    case "claude":
      return { path: ["permissions", "deny"], rules: claudeRules() };
    case "gemini":
    case "qwen":
      return { path: ["tools", "exclude"], rules: PERSON_ONLY.map((w) => `run_shell_command(${w.join(" ")})`) };
    default:
      return null;
  }
}

/** Codex's execpolicy rules file (Starlark): one forbidden prefix per person-only command. */
export function codexRulesText(): string {
  const lines = [
    `# kbz: the person's acts, refused to the agent (written by \`${kbz("hook install", { agent: "codex" })}\`; --uninstall deletes this file).`,
    ...PERSON_ONLY.map(
      (w) =>
        `prefix_rule(pattern = ${JSON.stringify(w)}, decision = "forbidden", justification = "a person's act: run it yourself in a terminal")`,
    ),
    "",
  ];
  return lines.join("\n");
}

/** What a person adds to a Copilot CLI command line; Copilot has no file kbz could write them to. */
export const COPILOT_DENY = PERSON_ONLY.map((w) => `--deny-tool 'shell(${w.join(" ")}:*)'`).join(" ");
