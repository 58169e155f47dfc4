// kbz skill install: write the embedded kill-bezzangyi skill where Claude Code, Codex, Cursor or
// Gemini CLI finds it.
import * as os from "node:os";
import { kbz } from "../core/text/command.ts";
import { UsageError } from "../core/errors.ts";
import {
  installSkill,
  SKILL_AGENTS,
  SKILL_NAME,
  SkillInstallRefusal,
  skillFolder,
  type SkillAgent,
} from "../ops/skill.ts";
import type { ExitCode, Verb } from "./index.ts";
import { emit, envelope, failWith } from "./envelope.ts";
import { out } from "./output.ts";
import { describe } from "../core/errors.ts";

interface SkillArgs {
  action: string;
  global?: boolean;
  agent?: string;
  json?: boolean;
}

function install(argv: SkillArgs): ExitCode {
  const agent = (argv.agent ?? "claude") as SkillAgent;
  if (!SKILL_AGENTS.includes(agent)) throw new UsageError(`--agent must be one of ${SKILL_AGENTS.join(", ")}`);
  const base = argv.global ? os.homedir() : process.cwd();
  const dir = skillFolder(agent, !!argv.global, process.cwd(), os.homedir());
  let o;
  try {
    o = installSkill(base, dir);
  } catch (e) {
    const why = e instanceof SkillInstallRefusal ? e.located() : `could not write ${dir}: ${describe(e)}`;
    return failWith(
      [
        {
          file: null,
          line: null,
          message: why,
          hint: `move the conflicting files away, then run ${kbz("skill install")} again`,
        },
      ],
      false,
      !!argv.json,
      { result: "refused", dir, error: why },
    );
  }
  const result = o.written.length === 0 ? "already-installed" : "installed";
  if (argv.json) {
    emit(envelope(result, 0, { result, agent, dir, written: o.written, unchanged: o.unchanged }));
  } else if (result === "already-installed") {
    out(`Already installed in ${dir} (idempotent, nothing changed).`);
  } else {
    // Short (issue 30): the folder and the counts; --json lists every file.
    const unchanged = o.unchanged.length ? `, ${o.unchanged.length} unchanged` : "";
    out(
      `Installed the ${SKILL_NAME} skill for ${agent} into ${dir} (${o.written.length} files written${unchanged}; --json lists them)`,
    );
  }
  return 0;
}

export const verb: Verb = {
  command: "skill <action>",
  describe:
    "install the kill-bezzangyi agent skill (SKILL.md, references, templates) for Claude Code, Codex, Cursor or Gemini CLI",
  builder: (y) =>
    y
      .positional("action", { choices: ["install"], describe: "install: write the embedded skill files" })
      .option("global", { type: "boolean", describe: "install for the user (~/.claude/skills or ~/.agents/skills)" })
      .option("agent", {
        type: "string",
        choices: [...SKILL_AGENTS],
        describe: "claude: .claude/skills; codex, cursor, gemini: .agents/skills (all three read it)",
        requiresArg: true,
      })
      .option("json", { type: "boolean", describe: "print one JSON object" }),
  handler: (argv: SkillArgs) => install(argv),
};
