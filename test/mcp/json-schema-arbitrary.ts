/**
 * fast-check arbitraries from JSON Schema, for the subset the interface's schemas use (TypeBox's
 * output and zod-to-json-schema's): object, array, string (date-time, uuid, email formats and
 * lengths), number and integer with bounds, boolean, null, const, enum, anyOf/oneOf and type
 * lists. Hand-written because no maintained package turns JSON Schema into fast-check
 * arbitraries; the schemas here are small and closed, so the subset is enough. Anything outside
 * it throws, so a schema growing a new keyword makes the test say so instead of sampling wrongly.
 *
 * Also makes near misses: a valid value with one field broken, so two validators can be asked
 * whether they agree on what they refuse.
 */
import fc from 'fast-check';

type Json = Record<string, unknown>;

const KNOWN = new Set([
  'type', 'properties', 'required', 'additionalProperties', 'items', 'minItems', 'maxItems', 'minLength', 'maxLength',
  'minimum', 'maximum', 'format', 'enum', 'const', 'anyOf', 'oneOf', 'title', 'description', 'default', '$schema', 'examples',
]);

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

const ADDRESSES = ['jane.doe@example.com', 'no-such-user@example.org', 'sales@bücher.example', 'x@y.example'];

function stringArbitrary(schema: Json): fc.Arbitrary<string> {
  switch (schema.format) {
    case 'date-time':
      return fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString());
    case 'uuid':
      return fc.uuid();
    case 'email':
      return fc.constantFrom(...ADDRESSES);
    case undefined:
      return fc.string({ minLength: Number(schema.minLength ?? 0), maxLength: Math.min(Number(schema.maxLength ?? 12), 12) });
    default:
      throw new Error(`no arbitrary for string format ${String(schema.format)}`);
  }
}

function numberArbitrary(schema: Json, integer: boolean): fc.Arbitrary<number> {
  const min = typeof schema.minimum === 'number' ? schema.minimum : -1e6;
  const max = typeof schema.maximum === 'number' ? schema.maximum : 1e6;
  return integer ? fc.integer({ min, max }) : fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
}

export function arbitraryOf(schema: unknown): fc.Arbitrary<unknown> {
  if (schema === true || (isObject(schema) && Object.keys(schema).length === 0)) return fc.jsonValue();
  if (!isObject(schema)) throw new Error(`not a schema: ${JSON.stringify(schema)}`);
  const unknown = Object.keys(schema).filter((k) => !KNOWN.has(k));
  if (unknown.length) throw new Error(`no arbitrary for keywords ${unknown.join(', ')}`);
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const branches = (schema.anyOf ?? schema.oneOf) as unknown[] | undefined;
  if (branches) return fc.oneof(...branches.map(arbitraryOf));
  if (Array.isArray(schema.type)) return fc.oneof(...(schema.type as string[]).map((type) => arbitraryOf({ ...schema, type })));
  switch (schema.type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'string':
      return stringArbitrary(schema);
    case 'number':
      return numberArbitrary(schema, false);
    case 'integer':
      return numberArbitrary(schema, true);
    case 'array':
      return fc.array(arbitraryOf(schema.items ?? {}), { minLength: Number(schema.minItems ?? 0), maxLength: Math.min(Number(schema.maxItems ?? 4), 4) });
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, unknown>;
      const required = (schema.required ?? []) as string[];
      const record = fc.record(
        Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, arbitraryOf(v)])),
        { requiredKeys: required.filter((k) => k in properties) },
      );
      const extra = schema.additionalProperties;
      if (extra === undefined || extra === false) return record;
      // Open objects (Counters, a record of anything): sometimes a key the schema does not name.
      const extraValue = arbitraryOf(extra === true ? {} : extra);
      return fc.tuple(record, fc.dictionary(fc.constantFrom('zExtraA', 'zExtraB'), extraValue, { maxKeys: 2 })).map(([r, d]) => ({ ...d, ...r }));
    }
    default:
      throw new Error(`no arbitrary for type ${String(schema.type)}`);
  }
}

/** Every path to a value inside `value` (object keys and array indices). */
function paths(value: unknown, prefix: Array<string | number> = []): Array<Array<string | number>> {
  if (Array.isArray(value)) return value.flatMap((v, i) => [[...prefix, i], ...paths(v, [...prefix, i])]);
  if (isObject(value)) return Object.entries(value).flatMap(([k, v]) => [[...prefix, k], ...paths(v, [...prefix, k])]);
  return [];
}

/** Values that break most fields one way or another. */
const WRONG = ['not-a-known-value', '', -1, 0.5, 101, 1e9, null, true, {}, [], 'x', '2026-13-45T99:99:99Z'];

export type NearMiss = { kind: string; path: string; value: unknown };

/** Near misses of a valid value: one field replaced by a wrong value, removed, or an unknown field added. */
export function nearMisses(valid: unknown): fc.Arbitrary<NearMiss> {
  const all = paths(valid);
  const replace = all.length
    ? fc.tuple(fc.constantFrom(...all), fc.constantFrom(...WRONG)).map(([p, w]) => ({ kind: 'replace', path: p.join('.'), value: setAt(valid, p, w) }))
    : null;
  const remove = all.length ? fc.constantFrom(...all).map((p) => ({ kind: 'remove', path: p.join('.'), value: setAt(valid, p, undefined) })) : null;
  const objects = [[] as Array<string | number>, ...all].filter((p) => isObject(getAt(valid, p)));
  const add = fc.constantFrom(...objects).map((p) => ({ kind: 'add', path: [...p, 'unexpected_field'].join('.'), value: setAt(valid, [...p, 'unexpected_field'], 1) }));
  return fc.oneof(...[replace, remove, add].filter((a): a is fc.Arbitrary<NearMiss> => a !== null));
}

function getAt(value: unknown, path: Array<string | number>): unknown {
  return path.reduce<unknown>((v, k) => (v as Record<string | number, unknown> | undefined)?.[k], value);
}

/** A copy of `value` with `path` set (or deleted when `to` is undefined; an array item is removed). */
function setAt(value: unknown, path: Array<string | number>, to: unknown): unknown {
  const copy = structuredClone(value);
  const parent = getAt(copy, path.slice(0, -1)) as Record<string | number, unknown> | unknown[];
  const last = path[path.length - 1] as string | number;
  if (to !== undefined) (parent as Record<string | number, unknown>)[last] = to;
  else if (Array.isArray(parent)) parent.splice(Number(last), 1);
  else delete (parent as Record<string | number, unknown>)[last];
  return copy;
}
