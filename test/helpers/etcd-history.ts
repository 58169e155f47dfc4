// etcd's own record of who held what when: every PUT and DELETE under a prefix from revision 1,
// read through the watch gateway, folded into holding intervals [put revision, delete revision).
import { prefixEnd } from "../../src/io/coordination/etcd/client.ts";

export interface Holding {
  key: string;
  globs: string[];
  start: bigint;
  end: bigint | null; // null: still held
}

const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
const unb64 = (s: string | undefined) => (s ? Buffer.from(s, "base64").toString("utf8") : "");

export async function holdings(port: number, prefix: string): Promise<Holding[]> {
  const head = await (
    await fetch(`http://127.0.0.1:${port}/v3/kv/range`, {
      method: "POST",
      body: JSON.stringify({ key: b64(prefix), range_end: b64(prefixEnd(prefix)), count_only: true }),
    })
  ).json();
  const upTo = BigInt((head as any).header.revision);
  const ctrl = new AbortController();
  const res = await fetch(`http://127.0.0.1:${port}/v3/watch`, {
    method: "POST",
    signal: ctrl.signal,
    body: JSON.stringify({
      create_request: { key: b64(prefix), range_end: b64(prefixEnd(prefix)), start_revision: "1", prev_kv: true },
    }),
  });
  const open = new Map<string, Holding>();
  const done: Holding[] = [];
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  let buf = "";
  let seen = 0n;
  const deadline = Date.now() + 60_000;
  try {
    while (seen < upTo && Date.now() < deadline) {
      const { value, done: end } = await reader.read();
      if (end) break;
      buf += dec.decode(value, { stream: true });
      for (let nl = buf.indexOf("\n"); nl >= 0; nl = buf.indexOf("\n")) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        const msg = JSON.parse(line).result;
        for (const ev of msg?.events ?? []) {
          const key = unb64(ev.kv.key);
          const rev = BigInt(ev.kv.mod_revision);
          if (rev > seen) seen = rev;
          if (ev.type === "DELETE") {
            const h = open.get(key);
            if (h) {
              h.end = rev;
              done.push(h);
              open.delete(key);
            }
          } else if (!open.has(key)) {
            open.set(key, { key, globs: JSON.parse(unb64(ev.kv.value)).globs, start: rev, end: null });
          }
        }
        if (
          msg?.header?.revision &&
          BigInt(msg.header.revision) > seen &&
          !(msg.events?.length > 0) &&
          msg.created !== true
        )
          seen = BigInt(msg.header.revision);
      }
    }
  } finally {
    ctrl.abort();
  }
  if (seen < upTo) throw new Error(`watch history stopped at revision ${seen} of ${upTo}`);
  return [...done, ...open.values()];
}
