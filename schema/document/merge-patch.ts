/**
 * JSON Merge Patch (RFC 7396): null deletes a key, objects merge recursively, anything else (arrays
 * included) replaces whole. Inputs are never modified.
 */
import { clone, isRecord, type JsonObject, type Segment } from './json.js';
import { unknownFieldMessage } from '../did-you-mean.js';
import { formatPath } from './paths.js';
import { isMarker } from './redact.js';

export function mergePatch(target: unknown, patch: unknown): unknown {
  // A redaction marker sent back stands for a stored secret as a whole value: merged, its `key_id: null`
  // would delete its own key, leaving `{encrypted: true}` that nothing restores (redact.ts restoreMasks).
  if (!isRecord(patch) || isMarker(patch)) return clone(patch);
  const result: JsonObject = isRecord(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

/** Which keys the schema knows at a location; `any` for free-form maps. */
export type KnownKeysAt = (segments: ReadonlyArray<Segment>) => ReadonlySet<string> | 'any';

/**
 * Keys of a patch the schema does not know, set to null included (write rule 4: a null for an
 * unknown key is refused, not ignored). Arrays replace whole and are validated with the merged
 * document, so only object values are descended. Each carries the message validation gives an
 * unknown field, did-you-mean included.
 */
export function patchUnknownKeys(
  patch: unknown,
  knownKeysAt: KnownKeysAt,
): Array<{ path: string; segments: Segment[]; message: string }> {
  const out: Array<{ path: string; segments: Segment[]; message: string }> = [];
  const walk = (value: unknown, segments: Segment[]): void => {
    if (!isRecord(value)) return;
    const known = knownKeysAt(segments);
    // A place that holds no keys (a string such as a secret): validation of the merged document names its
    // shape. Its keys are not quoted back: one may be a credential written in the wrong place.
    if (known !== 'any' && known.size === 0) return;
    for (const [key, child] of Object.entries(value)) {
      const at = [...segments, key];
      if (known !== 'any' && !known.has(key)) {
        out.push({ path: formatPath(at), segments: at, message: unknownFieldMessage(key, known) });
        continue;
      }
      walk(child, at);
    }
  };
  walk(patch, []);
  return out;
}
