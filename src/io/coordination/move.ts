// `kbz coordinator import|export --scope S`: copy a scope's waves, status log and session binding
// between the files and etcd. Every refusal is decided before the first write, so a refused
// move changes nothing. Leases never move: a lease is a live holding, so the source side must
// hold none (release, then claim again under the other coordination adapter). Leaf states set through etcd
// are reported, not written into PLAN.md (PLAN.md is edited by its own verb).
import * as fs from "node:fs";
import { KbzError } from "../../core/errors.ts";
import { readLeaseRecords } from "../read.ts";
import { bindSession, readSessionFile } from "../dispatch/session.ts";
import { appendStatus, statusLogPath } from "../dispatch/statuslog.ts";
import { dispatchPath, DispatchStateError, serializeDispatch, parseDispatch } from "../../core/dispatch/waves.ts";
import { loadDispatch } from "../read.ts";
import { writeAtomic } from "../fs.ts";
import { withFileLock } from "../lock.ts";
import type { CoordinatorConfig } from "./config.ts";
import { filesView } from "./files.ts";
import { prefixEnd, rangeKvs, type Op } from "./etcd/client.ts";
import { EtcdCoordination, leaseRecord } from "./etcd/coordination.ts";
import { kbz } from "../../core/text/command.ts";

export class MoveRefused extends KbzError {
  constructor(message: string) {
    super(message, {
      code: "move-refused",
      hint: "nothing was moved; fix the named conflict and run the same command again",
    });
  }
}

export interface MoveResult {
  waves: number;
  logLines: number;
  session: boolean;
  leafStates: number;
}

const LOG_BATCH = 100; // etcd's default limit is 128 operations per transaction

function same(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((l, i) => l === b[i]);
}

export async function moveScope(
  root: string,
  config: CoordinatorConfig & { kind: "etcd" },
  scope: string,
  direction: "import" | "export",
): Promise<MoveResult> {
  const coord = new EtcdCoordination({
    root,
    url: config.url,
    repository: config.repository,
    ttl: config.ttl,
    keepAlive: "inline",
  });
  try {
    const k = coord.keys;
    const t = await coord.client.txn(
      [],
      [
        ...[k.scopeLeases(scope), k.log(scope), k.plan(scope)].map((p) => ({
          range: { key: p, rangeEnd: prefixEnd(p) },
        })),
        { range: { key: k.dispatch(scope) } },
        { range: { key: k.session(scope) } },
      ],
    );
    const kvsOf = (i: number) => rangeKvs(t.responses[i]);
    const etcdLeases = kvsOf(0)
      .map((kv) => leaseRecord(k, kv))
      .filter((r) => !r.invalid);
    const etcdLog = kvsOf(1)
      .sort((a, b) => Number(BigInt(a.createRevision) - BigInt(b.createRevision)))
      .map((kv) => kv.value);
    const etcdPlan = kvsOf(2);
    const etcdDispatch = kvsOf(3)[0] ?? null;
    const etcdSession = kvsOf(4)[0]?.value ?? null;

    const files = filesView(root);
    let fileDispatch: string | null;
    try {
      const d = loadDispatch(root, scope);
      fileDispatch = d.text === null ? null : serializeDispatch(d.state);
    } catch (e) {
      if (e instanceof DispatchStateError)
        throw new MoveRefused(
          `${dispatchPath(root, scope)}:${e.line}: invalid dispatch state: ${e.message}; fix it before moving`,
        );
      throw e;
    }
    const fileLog = files.statusLog(scope, Number.MAX_SAFE_INTEGER);
    const fileSession = readSessionFile(root, scope);
    const waveCount = (text: string | null) => (text === null ? 0 : parseDispatch(text).waves.size);

    if (direction === "import") {
      const held = readLeaseRecords(root).filter((r) => !r.invalid && r.scope === scope);
      if (held.length > 0)
        throw new MoveRefused(
          `scope ${scope} holds ${held.length} file lease(s) (${held.map((h) => h.leaf).join(", ")}); release them (${kbz("scope release", { scope, coordinator: "files" })}) and claim again with the coordinator`,
        );
      if (etcdDispatch && fileDispatch !== null && etcdDispatch.value !== fileDispatch)
        throw new MoveRefused(
          `the coordinator already holds different waves for ${scope}; export them first or abandon them there`,
        );
      const logOps = etcdLog.length === 0 ? fileLog : same(etcdLog, fileLog) ? [] : null;
      if (logOps === null) throw new MoveRefused(`the coordinator already holds a different status log for ${scope}`);
      if (etcdSession !== null && fileSession !== null && etcdSession !== fileSession)
        throw new MoveRefused(`the coordinator binds ${scope} to another session`);
      if (fileDispatch !== null && !etcdDispatch) {
        const r = await coord.client.txn(
          [{ key: k.dispatch(scope), target: "CREATE", result: "EQUAL", createRevision: "0" }],
          [{ put: { key: k.dispatch(scope), value: fileDispatch } }],
        );
        if (!r.succeeded)
          throw new MoveRefused(`waves for ${scope} appeared at the coordinator during the import; run it again`);
      }
      for (let i = 0; i < logOps.length; i += LOG_BATCH) {
        const ops: Op[] = logOps.slice(i, i + LOG_BATCH).map((line, j) => ({
          put: { key: `${k.log(scope)}${String(i + j).padStart(13, "0")}-import`, value: line },
        }));
        await coord.client.txn([], ops);
      }
      if (fileSession !== null && etcdSession === null) await coord.client.put(k.session(scope), fileSession);
      return { waves: waveCount(fileDispatch), logLines: logOps.length, session: fileSession !== null, leafStates: 0 };
    }

    if (etcdLeases.length > 0)
      throw new MoveRefused(
        `scope ${scope} holds ${etcdLeases.length} lease(s) at the coordinator (${etcdLeases.map((h) => h.leaf).join(", ")}); release them and claim again with --coordinator files`,
      );
    if (etcdDispatch && fileDispatch !== null && etcdDispatch.value !== fileDispatch)
      throw new MoveRefused(`${dispatchPath(root, scope)} already holds different waves; move it aside first`);
    const logLines = fileLog.length === 0 ? etcdLog : same(etcdLog, fileLog) ? [] : null;
    if (logLines === null)
      throw new MoveRefused(`${statusLogPath(root, scope)} already holds a different status log; move it aside first`);
    if (etcdSession !== null && fileSession !== null && etcdSession !== fileSession)
      throw new MoveRefused(`${scope} is bound to another session in the files`);
    if (etcdDispatch && fileDispatch === null) {
      const file = dispatchPath(root, scope);
      await withFileLock(root, file, () => {
        if (fs.existsSync(file)) throw new MoveRefused(`${file} appeared during the export; run it again`);
        writeAtomic(file, etcdDispatch.value, { root, createParents: true, mode: 0o600 });
      });
    }
    for (const line of logLines) appendStatus(statusLogPath(root, scope), line);
    if (etcdSession !== null && fileSession === null) bindSession(root, scope, etcdSession);
    return {
      waves: waveCount(etcdDispatch?.value ?? null),
      logLines: logLines.length,
      session: etcdSession !== null,
      leafStates: etcdPlan.length,
    };
  } finally {
    coord.close();
  }
}
