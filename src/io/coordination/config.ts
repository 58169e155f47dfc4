// Which coordination adapter a command uses: `--coordinator`, else KBZ_COORDINATOR, else "coordinator" in the
// repository's .kbz/settings.json, else the files. Resolving costs one failed lstat when nothing is set.
import { gitInert } from "../git.ts";
import { parseInteger } from "../../core/text/integer.ts";
import { KbzError } from "../../core/errors.ts";
import { isValidId } from "../../core/workspace/ids.ts";
import { readSettings, SETTINGS_FILE, settingsProblem } from "../settings.ts";

export const DEFAULT_TTL = 30;
const MIN_TTL = 2;
const MAX_TTL = 3600;
const SHAPE =
  '{"coordinator": "etcd://HOST:PORT,…"} or {"coordinator": {"url": "etcd://…", "repository": "ID", "ttl": SECONDS}}';

export type CoordinatorConfig =
  | { kind: "files" }
  | {
      kind: "etcd";
      url: string;
      /** Repository identity: the namespace every key of this repository lives under. */
      repository: string;
      /** TTL of each claim's etcd lease, in seconds; the keeper renews it. */
      ttl: number;
      source: "flag" | "env" | "setting";
    };

interface Setting {
  url?: string;
  repository?: string;
  ttl?: number;
}

/** A bad coordinator setting (flag, environment or file): exit 2 with the reason. */
export class CoordinatorConfigError extends KbzError {
  constructor(message: string) {
    super(message, {
      code: "coordinator-config",
      hint: `fix --coordinator, KBZ_COORDINATOR or "coordinator" in ${SETTINGS_FILE}`,
    });
  }
}

/** The "coordinator" entry of the repository's .kbz/settings.json (io/settings.ts reads the file). */
function readSetting(root: string): Setting | null {
  const raw = readSettings(root);
  if (raw === null) return null;
  const bad = (message: string): never => {
    throw settingsProblem(`${message}; expected ${SHAPE}`);
  };
  const c = raw.coordinator;
  if (c === undefined) return null;
  if (typeof c === "string") return { url: c };
  if (typeof c !== "object" || c === null || Array.isArray(c)) return bad('"coordinator" must be a URL or an object');
  const o = c as Record<string, unknown>;
  for (const k of Object.keys(o))
    if (!["url", "repository", "ttl"].includes(k)) bad(`unknown coordinator key ${JSON.stringify(k).slice(0, 60)}`);
  if (o.url !== undefined && typeof o.url !== "string") bad('"coordinator.url" must be a string');
  if (o.repository !== undefined && (typeof o.repository !== "string" || !isValidId(o.repository)))
    bad('"coordinator.repository" must match /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/');
  if (o.ttl !== undefined && (!Number.isInteger(o.ttl) || (o.ttl as number) < MIN_TTL || (o.ttl as number) > MAX_TTL))
    bad(`"coordinator.ttl" must be an integer from ${MIN_TTL} to ${MAX_TTL}`);
  return o as Setting;
}

function parseTtl(v: string, where: string): number {
  const n = parseInteger(v, MIN_TTL, MAX_TTL);
  if (n === null) throw new CoordinatorConfigError(`${where} must be an integer from ${MIN_TTL} to ${MAX_TTL} seconds`);
  return n;
}

/**
 * The git root commit: identical in every clone of one repository, so clones on different
 * machines share one namespace without configuration.
 */
export function gitIdentity(root: string): string | null {
  const out = gitInert(root, ["rev-list", "--max-parents=0", "HEAD"]);
  if (out === null) return null;
  const roots = out
    .split("\n")
    .filter((l) => /^[0-9a-f]{40,64}$/.test(l))
    .sort();
  return roots[0] ?? null;
}

export function resolveCoordinator(
  root: string,
  flag: string | undefined,
  env: Record<string, string | undefined>,
): CoordinatorConfig {
  const fromEnv = env.KBZ_COORDINATOR;
  let url: string | undefined;
  let source: "flag" | "env" | "setting";
  let setting: Setting | null | undefined;
  if (flag !== undefined && flag !== "") {
    url = flag;
    source = "flag";
  } else if (fromEnv !== undefined && fromEnv !== "") {
    url = fromEnv;
    source = "env";
  } else {
    setting = readSetting(root);
    url = setting?.url;
    source = "setting";
  }
  if (url === undefined || url === "files") return { kind: "files" };
  if (!url.startsWith("etcd://"))
    throw new CoordinatorConfigError(
      `coordinator must be files or etcd://HOST:PORT[,HOST:PORT…] (from ${source === "flag" ? "--coordinator" : source === "env" ? "KBZ_COORDINATOR" : SETTINGS_FILE})`,
    );
  if (setting === undefined) setting = readSetting(root);
  const ttl = env.KBZ_LEASE_TTL ? parseTtl(env.KBZ_LEASE_TTL, "KBZ_LEASE_TTL") : (setting?.ttl ?? DEFAULT_TTL);
  const repository = setting?.repository ?? gitIdentity(root);
  if (!repository) {
    throw new CoordinatorConfigError(
      `cannot tell this repository's identity (no git history): set "repository" in ${SETTINGS_FILE} so every clone shares one namespace`,
    );
  }
  return { kind: "etcd", url, repository, ttl, source };
}
