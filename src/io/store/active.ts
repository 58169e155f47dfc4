// The process's store: the edges (CLI, Stop hook, dashboard) install it once per root before
// reading; readers ask `coordination(root)` and writers `storeFor(root)`. Without a coordinator
// both are the files adapter, and nothing else is loaded (the etcd modules load only when used).
import { isValidId } from "../../core/workspace/ids.ts";
import { filesStore, filesView } from "./files.ts";
import { resolveCoordinator, type CoordinatorConfig } from "./config.ts";
import type { CoordinationView, LostLease, Store } from "./port.ts";

interface Installed {
  store: Store;
  view: CoordinationView;
  logScope: string | null;
}

const installed = new Map<string, Installed>();

/** The view readers use for `root` (canonical): the installed one, else a lazy files view. */
export function coordination(root: string): CoordinationView {
  return installed.get(root)?.view ?? filesView(root);
}

/** The store writers use for `root` (canonical). */
export function storeFor(root: string): Store {
  return installed.get(root)?.store ?? filesStore(root);
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

/** Open the configured store for `root` without installing it (import/export open both). */
export async function openStore(root: string, config: CoordinatorConfig, keepAlive: "keeper" | "inline" = "keeper"): Promise<Store> {
  if (config.kind === "files") return filesStore(root);
  const { EtcdStore } = await import("./etcd/store.ts");
  return new EtcdStore({ root, url: config.url, repository: config.repository, ttl: config.ttl, keepAlive });
}

/**
 * Resolve and install the store for `root`, reading its view once (etcd: one transaction).
 * Returns the leases this clone lost, so the command can tell its holder first thing.
 */
export async function installStore(root: string, opts: OpenOptions = {}): Promise<{ store: Store; lost: LostLease[] }> {
  const config = resolveCoordinator(root, opts.flag, opts.env ?? process.env);
  if (config.kind === "files") {
    installed.delete(root);
    return { store: filesStore(root), lost: [] };
  }
  const store = await openStore(root, config, opts.keepAlive ?? "keeper");
  const logScope = opts.logScope && isValidId(opts.logScope) ? opts.logScope : null;
  const view = await store.view({ logScope });
  installed.set(root, { store, view, logScope });
  return { store, lost: view.lost(null) };
}

/** Read the installed store's view again (after a write, or when a watch fired). */
export async function refreshView(root: string, logScope?: string | null): Promise<CoordinationView> {
  const i = installed.get(root);
  if (!i) return filesView(root);
  if (logScope !== undefined) i.logScope = logScope;
  i.view = await i.store.view({ logScope: i.logScope });
  return i.view;
}

export function closeStores(): void {
  for (const i of installed.values()) i.store.close();
  installed.clear();
}
