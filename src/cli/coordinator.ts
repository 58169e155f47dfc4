// kbz coordinator: the etcd cluster behind --coordinator (status), moving a scope's state
// between the files and the cluster (import, export), and the lease keeper a claim starts (keep).
import { UsageError } from "../core/errors.ts";
import { parseInteger } from "../core/text/integer.ts";
import type { ExitCode, Verb } from "./index.ts";
import { emit, envelope } from "./envelope.ts";
import { err, out } from "./output.ts";
import { clusterStatus, etcdConfig as configured, keepLeaseAlive, moveScopeState } from "../ops/coordinator.ts";
import { requestedScope, rootOf, unknownAction, type PipelineArgs } from "./pipeline.ts";

interface CoordinatorArgs extends PipelineArgs {
  coordinator?: string;
  lease?: string;
  ttl?: string;
  held?: string;
}

const ACTIONS = ["status", "import", "export", "keep"];

// Hand-written kbz commands: help text in aligned columns, read as written (its flags are checked
// by test/core/text/kbz-strings.test.ts).
const HELP = `Actions:
  kbz coordinator status             the cluster's members; every lease held, with its TTL
  kbz coordinator import --scope S   copy S's waves, status log and session: files -> etcd
  kbz coordinator export --scope S   copy S's waves, status log and session: etcd -> files

The coordinator is --coordinator etcd://HOST:PORT[,HOST:PORT…], else KBZ_COORDINATOR, else
"coordinator" in .kbz/settings.json. A claim's etcd lease lives for its TTL (default 30 s),
renewed by a keeper process. Import and export refuse while the source holds leases or the
destination has other waves. More: docs/scopes.md.
Exit: 0 done (status: a quorum answered); 2 usage, an unreachable cluster or refused.`;

async function etcdConfig(argv: CoordinatorArgs) {
  const root = rootOf(argv);
  const config = await configured(
    root,
    argv.coordinator,
    process.env,
    "no coordinator is configured: pass --coordinator etcd://HOST:PORT[,…] or set KBZ_COORDINATOR",
  );
  return { root, config };
}

async function status(argv: CoordinatorArgs): Promise<ExitCode> {
  const { root, config } = await etcdConfig(argv);
  const { label, members, up, quorum, holders, lost } = await clusterStatus(root, config);
  const exit: ExitCode = quorum ? 0 : 2;
  if (argv.json) {
    emit(
      envelope(
        quorum ? "ok" : "no-quorum",
        exit,
        {
          action: "status",
          coordinator: label,
          repository: config.repository,
          ttl: config.ttl,
          source: config.source,
          quorum,
          members,
          holders,
          lost,
        },
        quorum
          ? []
          : [
              {
                file: null,
                line: null,
                message: `only ${up} of ${members.length} members answered: no quorum`,
                hint: "restart the members or check the network",
              },
            ],
      ),
    );
    return exit;
  }
  out(`coordinator ${label} (repository ${config.repository}, lease TTL ${config.ttl} s, from ${config.source})`);
  for (const m of members)
    out(
      `  ${m.endpoint}: ${m.reachable ? `${m.leader ? "leader" : "member"} v${m.version} revision ${m.revision}` : "unreachable"}`,
    );
  if (holders.length === 0) out(quorum ? "no leases held" : "");
  for (const h of holders)
    out(
      `  ${h.scope}/${h.leaf}: ${h.globs.join(", ")} (holder ${h.host} pid ${h.pid ?? "?"}, TTL ${h.ttl}/${h.grantedTtl} s)`,
    );
  for (const l of lost) out(`  LOST ${l.scope}/${l.leaf}: ${l.reason}`);
  if (!quorum)
    err(
      `kbz: only ${up} of ${members.length} members answered: no quorum, so no claim can be granted; restart the members or check the network`,
    );
  else out(`${up}/${members.length} members up, ${holders.length} lease(s) held`);
  return exit;
}

async function move(direction: "import" | "export", argv: CoordinatorArgs): Promise<ExitCode> {
  const scope = requestedScope(argv);
  if (scope === null) throw new UsageError(`coordinator ${direction} needs --scope S`);
  const { root, config } = await etcdConfig(argv);
  const r = await moveScopeState(root, config, scope, direction);
  if (argv.json)
    emit(envelope(direction === "import" ? "imported" : "exported", 0, { action: direction, scope, ...r }));
  else
    out(
      `${direction === "import" ? "imported" : "exported"} scope ${scope}: ${r.waves} wave(s), ${r.logLines} status log line(s)${r.session ? ", session binding" : ""}${r.leafStates ? `, ${r.leafStates} leaf state(s)` : ""}`,
    );
  return 0;
}

async function keep(argv: CoordinatorArgs): Promise<ExitCode> {
  const ttl = parseInteger(argv.ttl, 1);
  if (!argv.lease || !/^\d{1,20}$/.test(argv.lease) || !argv.held || !ttl)
    throw new UsageError("keep needs --lease ID --ttl SECONDS --held FILE");
  const config = await configured(rootOf(argv), argv.coordinator, process.env, "keep needs --coordinator etcd://…");
  await keepLeaseAlive(config, argv.lease, ttl, argv.held);
  return 0;
}

export async function runCoordinator(argv: CoordinatorArgs): Promise<ExitCode> {
  if ((argv.args ?? []).length > 0) throw new UsageError(`coordinator ${argv.action} takes no positional arguments`);
  switch (argv.action) {
    case "status":
      return status(argv);
    case "import":
    case "export":
      return move(argv.action, argv);
    case "keep":
      return keep(argv);
    default:
      throw unknownAction(
        "coordinator",
        argv.action,
        ACTIONS.filter((a) => a !== "keep"),
      );
  }
}

export const verb: Verb = {
  command: "coordinator <action> [args..]",
  describe: "the etcd coordinator: status, import --scope S, export --scope S",
  builder: (y) =>
    y
      .positional("action", { type: "string", describe: "status | import | export" })
      .positional("args", { type: "string", array: true, hidden: true })
      .option("scope", { type: "string", describe: "scope id (import, export)", requiresArg: true })
      .option("lease", { type: "string", hidden: true, requiresArg: true })
      .option("ttl", { type: "string", hidden: true, requiresArg: true })
      .option("held", { type: "string", hidden: true, requiresArg: true })
      .option("root", { type: "string", describe: "repository root (default: found)", requiresArg: true })
      .option("json", { type: "boolean", describe: "print one JSON object" })
      .epilog(HELP),
  handler: (argv) => runCoordinator(argv as CoordinatorArgs),
};
