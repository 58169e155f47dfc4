// kbz doctor: does every installed stop guard actually fire? Per host and place: installed,
// trusted (Codex), the host's version against the contract, and a dry run of the installed
// command. Exit 0 only when every installed guard fires; each problem names the command that fixes it.
import * as os from "node:os";
import { kbz, placeholder as ph } from "../core/text/command.ts";
import { UsageError } from "../core/errors.ts";
import { HOST_NAMES, isHostName, type HostName } from "../core/hook/targets.ts";
import { approvalStoreDir, doctorPlaces, hostSandbox, type DoctorPlace } from "../ops/hook.ts";
import { oracleObserver } from "../ops/oracle.ts";
import type { ExitCode, Verb } from "./index.ts";
import { envelope, report } from "./envelope.ts";
import { out } from "./output.ts";

function line(d: DoctorPlace): string {
  const where = `${d.host} ${d.location}`.padEnd(16);
  const version = d.version.found ? ` (${d.host} ${d.version.found})` : "";
  const trust =
    d.trust === "unverified" ? " (Codex trust read from config.toml; codex is not on PATH to check the hash)" : "";
  if (d.fires) return `${where}fires       ${d.file}${version}${trust}`;
  return `${where}NOT FIRING  ${d.file}${version}: ${d.problem}\n${" ".repeat(16)}fix: ${d.fix}`;
}

export const verb: Verb = {
  command: "doctor",
  describe:
    "check that every installed stop guard fires: installed, trusted (Codex), host version, and a dry run of its command",
  builder: (y) =>
    y
      .option("agent", { type: "string", choices: [...HOST_NAMES], requiresArg: true, describe: "check one host only" })
      .option("json", { type: "boolean", describe: "print one JSON object" }),
  handler: async (argv: { agent?: string; json?: boolean }): Promise<ExitCode> => {
    if (argv.agent !== undefined && !isHostName(argv.agent))
      throw new UsageError(`--agent must be one of ${HOST_NAMES.join(", ")}`);
    const places = await doctorPlaces(
      process.cwd(),
      os.homedir(),
      process.env,
      (argv.agent as HostName | undefined) ?? null,
    );
    const broken = places.filter((p) => !p.fires);
    const verdict = places.length === 0 ? "not-installed" : broken.length ? "not-firing" : "fires";
    const exit: ExitCode = verdict === "fires" ? 0 : 1;
    const store = approvalStoreDir(process.env);
    const sandboxes = places.map((p) => ({
      ...p,
      sandbox: hostSandbox(p.host, process.cwd(), os.homedir(), process.env, store),
    }));
    const observer = oracleObserver(process.env);
    return report(!!argv.json, envelope(verdict, exit, { places: sandboxes, observer }), () => {
      for (const p of sandboxes) {
        out(line(p));
        // What the installed command would answer on this repository as it is (issue 40).
        if (p.answer)
          out(`${" ".repeat(16)}here: ${p.answer.length > 160 ? `${p.answer.slice(0, 157)}...` : p.answer}`);
        // Whether the host's own sandbox keeps its agent's commands away from the approval store (issue 41).
        const s = p.sandbox;
        const state = s.sandboxed === true ? "sandboxed" : s.sandboxed === false ? "NOT SANDBOXED" : "sandbox unknown";
        out(`${" ".repeat(16)}${state}: ${s.how}`);
        if (s.fix) out(`${" ".repeat(16)}to keep it from the approval store: ${s.fix}`);
      }
      out(`oracle observer: ${observer.line}`);
      if (places.length === 0)
        out(`No kbz stop guard is installed here: run ${kbz("hook install", { agent: ph(HOST_NAMES.join("|")) })}`);
    });
  },
};
