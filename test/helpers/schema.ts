// A JSON Schema check for the subset the hosts' Stop output schemas use (draft-07: type, enum,
// const, pattern, properties, additionalProperties: false, required, allOf, if/then, anyOf, $ref
// into #/definitions). Unknown keywords fail loudly, so a schema this cannot read is never passed.
type Schema = Record<string, unknown>;

const KNOWN = new Set([
  "$schema",
  "$comment",
  "title",
  "description",
  "default",
  "type",
  "enum",
  "const",
  "pattern",
  "properties",
  "additionalProperties",
  "required",
  "allOf",
  "if",
  "then",
  "anyOf",
  "$ref",
  "definitions",
]);

function typeOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}

/** Problems of `value` against `schema`, as `path: message` lines; empty when it validates. */
export function validate(value: unknown, schema: Schema, root: Schema = schema, at = "$"): string[] {
  const errors: string[] = [];
  for (const k of Object.keys(schema))
    if (!KNOWN.has(k)) throw new Error(`schema keyword ${k} is not supported by test/helpers/schema.ts`);
  if (typeof schema.$ref === "string") {
    const name = schema.$ref.replace(/^#\/definitions\//, "");
    const target = (root.definitions as Record<string, Schema> | undefined)?.[name];
    if (!target) throw new Error(`unresolved $ref ${schema.$ref}`);
    errors.push(...validate(value, target, root, at));
  }
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    const t = typeOf(value);
    if (!types.includes(t) && !(t === "integer" && types.includes("number")))
      errors.push(`${at}: is ${t}, wants ${types.join("|")}`);
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => e === value))
    errors.push(`${at}: ${JSON.stringify(value)} is not one of ${JSON.stringify(schema.enum)}`);
  if ("const" in schema && schema.const !== value) errors.push(`${at}: is not ${JSON.stringify(schema.const)}`);
  if (typeof schema.pattern === "string" && typeof value === "string" && !new RegExp(schema.pattern, "u").test(value))
    errors.push(`${at}: does not match ${schema.pattern}`);
  if (Array.isArray(schema.anyOf) && !schema.anyOf.some((s) => validate(value, s as Schema, root, at).length === 0))
    errors.push(`${at}: matches none of anyOf`);
  for (const s of (schema.allOf as Schema[] | undefined) ?? []) errors.push(...validate(value, s, root, at));
  if (schema.if !== undefined && validate(value, schema.if as Schema, root, at).length === 0 && schema.then) {
    errors.push(...validate(value, schema.then as Schema, root, at));
  }
  if (typeOf(value) === "object") {
    const o = value as Record<string, unknown>;
    const props = (schema.properties as Record<string, Schema> | undefined) ?? {};
    for (const r of (schema.required as string[] | undefined) ?? [])
      if (!(r in o)) errors.push(`${at}: lacks required ${r}`);
    for (const [k, v] of Object.entries(o)) {
      if (props[k]) errors.push(...validate(v, props[k]!, root, `${at}.${k}`));
      else if (schema.additionalProperties === false)
        errors.push(`${at}: has key ${k}, which the schema does not allow`);
    }
  }
  return errors;
}
