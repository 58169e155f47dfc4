// `kbz doctor`: for each place kbz's guard is installed (or was, by ~/.kbz/installs.json), whether
// it would FIRE: the installed command, run the way the host runs it on a dry-run payload of that
// host in a scratch repository with one unmet gate, must answer with that host's block naming the
// gate; Codex must trust the hook (asked of Codex itself when `codex` is on PATH: a trust hash that
// no longer matches the command shows as modified); and the host's version, when its CLI is on
// PATH, must meet the contract kbz relies on. Every problem comes with the command that fixes it.
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { findProgram } from "../program.ts";
import { HOST_NAMES, TARGETS, type HostName, type Location } from "../../core/hook/targets.ts";
import { shellWords } from "../../core/text/shell.ts";
import { readRecords, type InstallRecord } from "./record.ts";
import { hookStatus, runnable, codexEventKey, type HookPlace } from "./status.ts";
import { shimTarget } from "./shim.ts";
import { kbz } from "../../core/text/command.ts";

/** The oldest host version whose hook contract kbz's installed form relies on (tested end to end in test/hosts). */
export const CONTRACT: Record<HostName, { cli: string; min: string | null; why: string }> = {
  claude: { cli: "claude", min: "2.1.100", why: "the oldest Claude Code the one-string command is tested on" },
  codex: { cli: "codex", min: "0.143.0", why: "SubagentStop and per-hook trust as kbz reads it" },
  cursor: { cli: "cursor-agent", min: null, why: "Cursor's agent runs only through Cursor's service; not probed" },
  gemini: { cli: "gemini", min: "0.34.0", why: "stop_hook_active on AfterAgent retries" },
  copilot: { cli: "copilot", min: "1.0.72", why: "agentStop's stop_hook_active and block cap" },
  qwen: { cli: "qwen", min: "0.24.4", why: "Stop with stop_hook_active and background_tasks" },
  opencode: { cli: "opencode", min: "1.18.33", why: "the plugin API kbz's plugin uses" },
};

export interface DoctorPlace {
  host: HostName;
  location: Location;
  file: string;
  command: string | null;
  /** installed: kbz's entry is there; removed: it was installed (installs.json) and is gone. */
  state: "installed" | "removed" | "unreadable";
  trust: "trusted" | "untrusted" | "modified" | "unverified" | null;
  version: { found: string | null; min: string | null; ok: boolean | null };
  fires: boolean;
  /** What the installed command answers on this repository's real state (a dry run; issue 40), or null when it could not be run. */
  answer: string | null;
  problem: string | null;
  fix: string | null;
}

function compareVersions(a: string, b: string): number {
  const pa = a.split(".").map((x) => parseInt(x, 10) || 0);
  const pb = b.split(".").map((x) => parseInt(x, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++)
    if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) - (pb[i] ?? 0);
  return 0;
}

/** `<cli> --version`'s first x.y.z, or null when the CLI is not on PATH or does not say. */
export function hostVersion(host: HostName, env: Record<string, string | undefined>): string | null {
  const cli = findProgram(CONTRACT[host].cli, env);
  if (!cli) return null;
  const r = spawnSync(cli, ["--version"], {
    env: env as NodeJS.ProcessEnv,
    encoding: "utf8",
    timeout: 20_000,
    stdio: ["ignore", "pipe", "pipe"],
  });
  return /(\d+\.\d+\.\d+)/.exec(`${r.stdout ?? ""} ${r.stderr ?? ""}`)?.[1] ?? null;
}

/** The dry-run payload each host would send for a main-agent stop in `dir`. */
export function dryRunPayload(host: HostName, dir: string): Record<string, unknown> {
  const session = "kbz-doctor";
  switch (host) {
    case "codex":
      return {
        session_id: session,
        turn_id: "doctor",
        transcript_path: null,
        cwd: dir,
        hook_event_name: "Stop",
        model: "doctor",
        permission_mode: "default",
        stop_hook_active: false,
        last_assistant_message: "Done.",
      };
    case "cursor":
      return {
        conversation_id: session,
        generation_id: "doctor",
        hook_event_name: "stop",
        workspace_roots: [dir],
        status: "completed",
        loop_count: 0,
      };
    case "gemini":
      return {
        session_id: session,
        cwd: dir,
        hook_event_name: "AfterAgent",
        prompt: "doctor",
        prompt_response: "Done.",
        stop_hook_active: false,
      };
    case "copilot":
      return { sessionId: session, cwd: dir, timestamp: 0, stopReason: "end_turn", stopHookActive: false };
    case "opencode":
      return { hook_event_name: "session.idle", session_id: session, cwd: dir, stop_hook_active: false };
    default:
      return {
        session_id: session,
        cwd: dir,
        hook_event_name: "Stop",
        stop_hook_active: false,
        last_assistant_message: "Done.",
      };
  }
}

/** The text the agent would be given, read from the host's block form; null when the answer lets it stop. */
export function blockText(host: HostName, stdout: string): string | null {
  let o: unknown;
  try {
    o = JSON.parse(stdout);
  } catch {
    return null;
  }
  if (!o || typeof o !== "object") return null;
  const a = o as Record<string, unknown>;
  if (host === "cursor") return typeof a.followup_message === "string" ? a.followup_message : null;
  if (host === "gemini") return a.decision === "deny" && typeof a.reason === "string" ? a.reason : null;
  return a.decision === "block" && typeof a.reason === "string" ? a.reason : null;
}

const DOCTOR_GATE = "KBZ-DOCTOR";

/**
 * Run `command` as a host would (through a shell, in a scratch repository holding one unmet gate)
 * and check it answers with that host's block naming the gate. Returns why not, or null.
 */
export function firesProblem(host: HostName, command: string, env: Record<string, string | undefined>): string | null {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "kbz-doctor-"));
  try {
    const words = shellWords(command);
    const at = words.indexOf("--scope");
    const scope = at >= 0 ? words[at + 1] : undefined;
    const ledger = `# Gates: doctor\n\n- [ ] ${DOCTOR_GATE}: the guard fires\n`;
    fs.mkdirSync(path.join(dir, ".git"));
    if (scope) {
      fs.mkdirSync(path.join(dir, ".unlazy", scope), { recursive: true });
      fs.writeFileSync(path.join(dir, ".unlazy", scope, "GATES.md"), ledger);
    } else fs.writeFileSync(path.join(dir, "GATES.md"), ledger);
    const runEnv: Record<string, string> = {};
    for (const [k, v] of Object.entries(env)) if (v !== undefined && k !== "UNLAZY_SCOPE") runEnv[k] = v;
    const r = spawnSync("/bin/sh", ["-c", command], {
      cwd: dir,
      env: runEnv,
      input: JSON.stringify(dryRunPayload(host, dir)),
      encoding: "utf8",
      timeout: 30_000,
    });
    if (r.error) return `the command could not run: ${r.error.message}`;
    if (r.status === 127)
      return `the command's program is missing (exit 127): ${(r.stderr ?? "").trim().split("\n").pop() ?? ""}`;
    const text = blockText(host, r.stdout ?? "");
    if (r.status !== 0)
      return `the command exited ${r.status}${r.stderr ? `: ${r.stderr.trim().split("\n").pop()}` : ""}`;
    if (text === null)
      return `the command answered without blocking on an unmet gate: ${JSON.stringify((r.stdout ?? "").trim().slice(0, 200))}`;
    if (!text.includes(DOCTOR_GATE)) return "the command blocked without naming the unmet gate";
    return null;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Run `command` against the repository at `cwd` as it is (issue 40: the scratch run above proves the
 * command fires; this says what it would answer here): a stop of a made-up session, counted in a
 * throwaway store, so the real counts and holds are untouched. "block: …", "note: …" or "allow".
 */
export function realAnswer(
  host: HostName,
  command: string,
  env: Record<string, string | undefined>,
  cwd: string,
): string | null {
  const store = fs.mkdtempSync(path.join(os.tmpdir(), "kbz-doctor-store-"));
  try {
    const runEnv: Record<string, string> = {};
    for (const [k, v] of Object.entries(env)) if (v !== undefined) runEnv[k] = v;
    runEnv.UNLAZY_APPROVAL_DIR = store;
    const r = spawnSync("/bin/sh", ["-c", command], {
      cwd,
      env: runEnv,
      input: JSON.stringify({ ...dryRunPayload(host, cwd), session_id: "kbz-doctor-dry-run" }),
      encoding: "utf8",
      timeout: 30_000,
    });
    if (r.error || r.status === null) return null;
    const block = blockText(host, r.stdout ?? "");
    if (block !== null) return `block: ${block}`;
    try {
      const o = JSON.parse(r.stdout ?? "");
      if (o && typeof o.systemMessage === "string") return `note: ${o.systemMessage}`;
    } catch {}
    return "allow";
  } finally {
    fs.rmSync(store, { recursive: true, force: true });
  }
}

interface CodexHook {
  key: string;
  trustStatus: string;
}

/** Codex's own view of the hooks for `cwd` (`hooks/list` over `codex app-server`); null when it cannot be asked. */
export async function askCodex(
  codex: string,
  env: Record<string, string | undefined>,
  cwd: string,
  timeoutMs = 30_000,
): Promise<CodexHook[] | null> {
  const child = spawn(codex, ["app-server"], {
    env: env as NodeJS.ProcessEnv,
    stdio: ["pipe", "pipe", "ignore"],
    detached: true,
  });
  const send = (o: unknown) => child.stdin.write(JSON.stringify(o) + "\n");
  child.stdin.on("error", () => {});
  try {
    return await new Promise<CodexHook[] | null>((resolve) => {
      const timer = setTimeout(() => resolve(null), timeoutMs);
      let buf = "";
      child.on("error", () => resolve(null));
      child.on("exit", () => resolve(null));
      child.stdout.on("data", (c) => {
        buf += c;
        for (let i = buf.indexOf("\n"); i >= 0; i = buf.indexOf("\n")) {
          let msg: { id?: number; result?: { data?: { hooks?: CodexHook[] }[] } };
          try {
            msg = JSON.parse(buf.slice(0, i));
          } catch {
            msg = {};
          }
          buf = buf.slice(i + 1);
          if (msg.id === 1) {
            send({ jsonrpc: "2.0", method: "initialized" });
            send({ jsonrpc: "2.0", id: 2, method: "hooks/list", params: { cwds: [cwd] } });
          } else if (msg.id === 2) {
            clearTimeout(timer);
            resolve((msg.result?.data ?? []).flatMap((d) => d.hooks ?? []));
          }
        }
      });
      send({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { clientInfo: { name: "kbz-doctor", version: "1" } },
      });
    });
  } finally {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {}
  }
}

function fixCommand(host: HostName, location: Location, record: InstallRecord | undefined): string {
  const flags =
    record?.flags ??
    (location === "global" ? ["--global"] : location === "shared" && host === "claude" ? ["--shared"] : []);
  return kbz("hook install", host === "claude" ? {} : { agent: host }, ...flags);
}

const CODEX_TRUST_FIX = "run codex, open /hooks and trust kbz's Stop and SubagentStop hooks";

export async function doctor(
  cwd: string,
  home: string,
  env: Record<string, string | undefined>,
  ownPaths: string[],
  only: HostName | null,
): Promise<DoctorPlace[]> {
  const places = hookStatus(cwd, home, env, ownPaths).filter((p) => only === null || p.host === only);
  const records = readRecords(home, env);
  const out: DoctorPlace[] = [];
  const versions = new Map<HostName, string | null>();
  let codexView: CodexHook[] | null | undefined;
  for (const p of places) {
    const record = records.find((r) => r.host === p.host && r.file === p.file);
    if (p.state === "absent" && !record) continue;
    const d: DoctorPlace = {
      host: p.host,
      location: p.location,
      file: p.file,
      command: p.command,
      state: p.state === "absent" ? "removed" : p.state,
      trust: null,
      version: { found: null, min: CONTRACT[p.host].min, ok: null },
      fires: false,
      answer: null,
      problem: null,
      fix: null,
    };
    out.push(d);
    const fix = fixCommand(p.host, p.location, record);
    if (p.state === "unreadable") {
      d.problem = `the file cannot be used: ${p.problem}`;
      d.fix = `repair ${p.file} by hand, then ${fix}`;
      continue;
    }
    if (p.state === "absent") {
      d.problem = "kbz's guard was installed here and has been removed";
      d.fix = fix;
      continue;
    }
    if (!versions.has(p.host)) versions.set(p.host, hostVersion(p.host, env));
    const found = versions.get(p.host) ?? null;
    const min = CONTRACT[p.host].min;
    d.version = { found, min, ok: found && min ? compareVersions(found, min) >= 0 : null };
    const problems: string[] = [];
    const fixes: string[] = [];
    if (p.problem) {
      problems.push(p.problem);
      fixes.push(fix);
    } else if (p.command) {
      const why = firesProblem(p.host, p.command, env);
      if (why) {
        const target = shimTarget(shellWords(p.command)[0] ?? "");
        problems.push(target && !runnable(p.command).ok ? `the kbz it runs is gone (${target[0]})` : why);
        fixes.push(fix);
      }
    }
    if (d.version.ok === false) {
      problems.push(`${CONTRACT[p.host].cli} ${found} is older than ${min} (${CONTRACT[p.host].why})`);
      fixes.push(`upgrade ${CONTRACT[p.host].cli} to ${min} or newer`);
    }
    if (p.host === "codex") {
      const codex = findProgram("codex", env);
      if (codex && codexView === undefined) codexView = await askCodex(codex, env, cwd);
      const mine = (codexView ?? []).filter((h) => h.key.startsWith(`${p.file}:`));
      if (codex && codexView) {
        const states = TARGETS.codex.events.map(
          (e) => mine.find((h) => h.key.startsWith(`${p.file}:${codexEventKey(e)}:`))?.trustStatus ?? "untrusted",
        );
        d.trust = states.every((s) => s === "trusted")
          ? "trusted"
          : states.includes("modified")
            ? "modified"
            : "untrusted";
      } else d.trust = p.trust === "trusted" ? "unverified" : "untrusted";
      if (d.trust === "modified") {
        problems.push("Codex skips it: the hook changed since the user trusted it (its trust hash no longer matches)");
        fixes.push(CODEX_TRUST_FIX);
      } else if (d.trust === "untrusted") {
        problems.push("Codex skips it until the user trusts it");
        fixes.push(CODEX_TRUST_FIX);
      }
    }
    if (p.command) d.answer = realAnswer(p.host, p.command, env, cwd);
    d.fires = problems.length === 0;
    d.problem = problems.length ? problems.join("; ") : null;
    d.fix = fixes.length ? [...new Set(fixes)].join("; then ") : null;
  }
  return out;
}

export { HOST_NAMES };
export type { HookPlace };

export { findProgram };
