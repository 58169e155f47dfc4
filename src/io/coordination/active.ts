// The process's coordination adapter: the edges (CLI, Stop hook, dashboard) install it once per root before
// reading; readers ask `coordination(root)` and writers `coordinationFor(root)`. Without a coordinator
// both are the files adapter, and nothing else is loaded (the etcd modules load only when used).
import { isValidId } from "../../core/workspace/ids.ts";
import { filesCoordination, filesView } from "./files.ts";
import { resolveCoordinator, type CoordinatorConfig } from "./config.ts";
import type { CoordinationView, LostLease, Coordination } from "./port.ts";

interface Installed {
  coord: Coordination;
  view: CoordinationView;
  logScope: string | null;
}

const installed = new Map<string, Installed>();

/** The view readers use for `root` (canonical): the installed one, else a lazy files view. */
export function coordination(root: string): CoordinationView {
  return installed.get(root)?.view ?? filesView(root);
}

/** The coordination adapter writers use for `root` (canonical). */
export function coordinationFor(root: string): Coordination {
  return installed.get(root)?.coord ?? filesCoordination(root);
}

export interface OpenOptions {
  /** `--coordinator` as given (undefined: not given). */
  flag?: string;
  env?: Record<string, string | undefined>;
  /** Keep claim leases alive from a spawned keeper (CLI) or from this process (long-lived callers). */
  keepAlive?: "keeper" | "inline";
  /** The scope whose status log the view should carry. */
  logScope?: string | null;
}

/** Open the configured coordination adapter for `root` without installing it (import/export open both). */
export async function openCoordination(
  root: string,
  config: CoordinatorConfig,
  keepAlive: "keeper" | "inline" = "keeper",
): Promise<Coordination> {
  if (config.kind === "files") return filesCoordination(root);
  const { EtcdCoordination } = await import("./etcd/coordination.ts");
  return new EtcdCoordination({ root, url: config.url, repository: config.repository, ttl: config.ttl, keepAlive });
}

/**
 * Resolve and install the coordination adapter for `root`, reading its view once (etcd: one transaction).
 * Returns the leases this clone lost, so the command can tell its holder first thing.
 */
export async function installCoordination(
  root: string,
  opts: OpenOptions = {},
): Promise<{ coord: Coordination; lost: LostLease[] }> {
  const config = resolveCoordinator(root, opts.flag, opts.env ?? process.env);
  if (config.kind === "files") {
    installed.delete(root);
    return { coord: filesCoordination(root), lost: [] };
  }
  const coord = await openCoordination(root, config, opts.keepAlive ?? "keeper");
  const logScope = opts.logScope && isValidId(opts.logScope) ? opts.logScope : null;
  const view = await coord.view({ logScope });
  installed.set(root, { coord, view, logScope });
  return { coord, lost: view.lost(null) };
}

/** Read the installed adapter's view again (after a write, or when a watch fired). */
export async function refreshView(root: string, logScope?: string | null): Promise<CoordinationView> {
  const i = installed.get(root);
  if (!i) return filesView(root);
  if (logScope !== undefined) i.logScope = logScope;
  i.view = await i.coord.view({ logScope: i.logScope });
  return i.view;
}

export function closeCoordination(): void {
  for (const i of installed.values()) i.coord.close();
  installed.clear();
}
