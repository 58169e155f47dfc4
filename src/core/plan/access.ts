// ACCESS.json (docs/formats.md#access): the reads and non-file resources each leaf declares. File writes are
// not here; they come from the ledger OWNS, mirrored by PLAN's Owns column.
import { ScheduleInputError } from "./errors.ts";
import { pathList, stringList, type Fail, type Plan } from "./table.ts";

export interface AccessDecl {
  reads: string[]; // normalized globs
  resourceReads: string[];
  resourceWrites: string[];
}

export const RESOURCE = /^[a-z0-9][a-z0-9:._/-]*$/;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Parse the text and check schema, revision and the exact leaf key set. */
export function parseAccess(text: string, plan: Plan, file = "ACCESS.json"): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new ScheduleInputError(`invalid JSON: ${(e as Error).message}`, file);
  }
  if (!isObject(value) || value.schema !== 1 || value.contractRevision !== plan.revision) {
    const got = isObject(value)
      ? `schema ${JSON.stringify(value.schema)}, contractRevision ${JSON.stringify(value.contractRevision)}`
      : "not an object";
    throw new ScheduleInputError(
      `ACCESS schema/revision must match PLAN (PLAN revision ${plan.revision}; ACCESS has ${got})`,
      file,
    );
  }
  const leaves = value.leaves;
  if (!isObject(leaves))
    throw new ScheduleInputError("ACCESS leaf ids must match PLAN exactly (leaves must be an object)", file);
  const keys = Object.keys(leaves);
  const missing = plan.rows.filter((r) => !Object.hasOwn(leaves, r.id)).map((r) => r.id);
  const extra = keys.filter((k) => !plan.byId.has(k));
  if (missing.length > 0 || extra.length > 0) {
    const parts = [
      missing.length ? `missing ${missing.join(", ")}` : "",
      extra.length ? `not in PLAN ${extra.join(", ")}` : "",
    ];
    throw new ScheduleInputError(`ACCESS leaf ids must match PLAN exactly (${parts.filter(Boolean).join("; ")})`, file);
  }
  return leaves;
}

/** One leaf's entry: `complete: true` and the three arrays, validated and normalized. */
export function accessEntry(id: string, entry: unknown, file = "ACCESS.json"): AccessDecl {
  const fail: Fail = (m) => {
    throw new ScheduleInputError(m, file);
  };
  // schedule.mjs's wording first, then the field and what is expected (issue 20.3).
  if (!isObject(entry))
    fail(
      `declare complete access information for ${id} (leaves["${id}"]: expected an object {complete, reads, resourceReads, resourceWrites}; see skill/references/access.schema.json)`,
    );
  if (entry.complete !== true)
    fail(
      `declare complete access information for ${id} (leaves["${id}"].complete: expected true, your statement that its reads and resources are all listed)`,
    );
  const e = entry as Record<string, unknown>;
  const strings = (key: string): string[] => {
    const v = e[key];
    if (!Array.isArray(v) || v.some((s) => typeof s !== "string"))
      fail(`${id} ${key} must be an array of nonblank strings`);
    return stringList(v as string[], `${id} ${key}`, fail);
  };
  const reads = pathList(strings("reads"), `${id} reads`, fail);
  const resourceReads = strings("resourceReads");
  const resourceWrites = strings("resourceWrites");
  for (const r of [...resourceReads, ...resourceWrites]) {
    if (!RESOURCE.test(r)) fail(`resource ids must be canonical lowercase names: ${id} declares ${JSON.stringify(r)}`);
  }
  return { reads, resourceReads, resourceWrites };
}

/**
 * The optional per-leaf `estimate` (issue 19): a positive number in any one unit the plan uses
 * (minutes, points), read by `kbz next --policy critical-path`. The originals' readers ignore
 * unknown per-leaf keys, so ACCESS.json stays valid for them; absent means 1.
 */
export function estimateOf(id: string, entry: unknown, file = "ACCESS.json"): number | undefined {
  const v = isObject(entry) ? entry.estimate : undefined;
  if (v === undefined) return undefined;
  if (typeof v !== "number" || !Number.isFinite(v) || v <= 0 || v > 1e9) {
    throw new ScheduleInputError(
      `estimate of ${id} must be a positive number up to 1e9 (got ${JSON.stringify(v)})`,
      file,
    );
  }
  return v;
}
