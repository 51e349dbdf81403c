/**
 * Which keys the schema knows at a document location: PATCH refuses keys not known there (even
 * when set to null), and writes carry unknown keys forward only where the schema does not know them.
 * Read off the zod schema itself, so it can never drift from what validation accepts.
 */
import type { z } from 'zod';
import { Company } from './company.schema.js';
import type { Segment } from './problems.js';

type Def = { type: string } & Record<string, unknown>;
const defOf = (schema: unknown): Def => (schema as { _zod: { def: Def } })._zod.def;

/** Wrappers that do not change which keys a value holds. */
function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (;;) {
    const def = defOf(current);
    if (def.type === 'optional' || def.type === 'nullable' || def.type === 'default') {
      current = def['innerType'] as z.ZodType;
    } else if (def.type === 'pipe') current = def['in'] as z.ZodType;
    else if (def.type === 'lazy') current = (def['getter'] as () => z.ZodType)();
    else return current;
  }
}

/** Object members of a schema (unions contribute every member); other schemas contribute none. */
function objects(schema: z.ZodType): z.ZodType[] {
  const inner = unwrap(schema);
  const def = defOf(inner);
  if (def.type === 'union') return (def['options'] as z.ZodType[]).flatMap(objects);
  return [inner];
}

function step(schema: z.ZodType, segment: Segment): z.ZodType[] {
  const def = defOf(schema);
  switch (def.type) {
    case 'object': {
      const shape = def['shape'] as Record<string, z.ZodType>;
      if (typeof segment === 'string' && Object.prototype.hasOwnProperty.call(shape, segment)) {
        const member = shape[segment];
        return member ? objects(member) : [];
      }
      // A loose object (the sandbox) keeps other keys as its catchall types them.
      const catchall = def['catchall'] as z.ZodType | undefined;
      return catchall !== undefined && defOf(catchall).type !== 'never' ? objects(catchall) : [];
    }
    case 'record':
      return typeof segment === 'string' ? objects(def['valueType'] as z.ZodType) : [];
    case 'array':
      return typeof segment === 'number' ? objects(def['element'] as z.ZodType) : [];
    case 'unknown':
    case 'any':
      // Free JSON (a settings value) stays free at every depth below it.
      return [schema];
    default:
      return [];
  }
}

const none: ReadonlySet<string> = new Set();

/**
 * Keys known at `segments` (empty when the location holds no map or is outside the schema), or
 * `'any'` where every key is accepted (free maps such as `extensions`, `mcp_env`, env and headers,
 * and objects whose field-level schema the spec leaves open, such as `sandbox`), at any depth below
 * a value the schema leaves as free JSON (an extension's settings, a sandbox key it does not type).
 *
 * @example knownKeysAt(['providers']) // Set {'llm', 'llm_order', 'embeddings'}
 */
export function knownKeysAt(segments: ReadonlyArray<Segment>): ReadonlySet<string> | 'any' {
  return keysOfSchemaAt(Company, segments);
}

/** knownKeysAt for any zod schema (the Tier A file's too): the keys an object at `segments` may hold. */
export function keysOfSchemaAt(
  root: z.ZodType,
  segments: ReadonlyArray<Segment>,
): ReadonlySet<string> | 'any' {
  let frontier: z.ZodType[] = objects(root);
  for (const segment of segments) frontier = frontier.flatMap((schema) => step(schema, segment));
  const keys = new Set<string>();
  for (const schema of frontier) {
    const def = defOf(schema);
    if (def.type === 'record' || def.type === 'unknown' || def.type === 'any') return 'any';
    if (def.type !== 'object') continue;
    const catchall = def['catchall'] as z.ZodType | undefined;
    if (catchall !== undefined && defOf(catchall).type !== 'never') return 'any';
    for (const key of Object.keys(def['shape'] as object)) keys.add(key);
  }
  return keys.size === 0 ? none : keys;
}
