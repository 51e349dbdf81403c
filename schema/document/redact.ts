/**
 * Redaction (write rule 7): secret leaves read as `{encrypted: true, key_id: null}`; a value made of
 * `${VAR}` references only (after an auth scheme such as `Bearer`, see onlyReferences) stays visible.
 * `restoreMasks` swaps markers in an incoming document back to the stored values, so a redacted read
 * sent back by a full PUT keeps its secrets. A URL elsewhere reads with its password, and a credential in
 * its query, masked and is restored the same way (url-password.ts).
 */
import { onlyReferences } from '../env-refs.js';
import { pairItems } from './collections.js';
import { clone, isRecord, type JsonObject, type Segment } from './json.js';
import { formatPath } from './paths.js';
import { holdsMaskedUrl, maskUrlPasswords, URL_PASSWORD_MASK } from './url-password.js';

export type IsSecret = (segments: ReadonlyArray<Segment>) => boolean;

export interface Marker {
  readonly encrypted: true;
  readonly key_id: string | null;
}

export const marker = (): Marker => ({ encrypted: true, key_id: null });

export function isMarker(value: unknown): value is Marker {
  return (
    isRecord(value) && value['encrypted'] === true && Object.keys(value).length === 2 && 'key_id' in value
  );
}

export function redact(doc: unknown, isSecret: IsSecret): unknown {
  const walk = (value: unknown, segments: Segment[]): unknown => {
    if (Array.isArray(value)) return value.map((item, i) => walk(item, [...segments, i]));
    if (isRecord(value)) {
      const out: JsonObject = {};
      for (const [key, child] of Object.entries(value)) out[key] = walk(child, [...segments, key]);
      return out;
    }
    if (value === null || value === undefined) return value;
    if (!isSecret(segments)) return typeof value === 'string' ? maskUrlPasswords(value) : value;
    if (typeof value === 'string' && (value === '' || onlyReferences(value))) return value;
    return marker();
  };
  return walk(doc, []);
}

export interface RestoreProblem {
  readonly path: string;
  readonly segments: Segment[];
  readonly message: string;
}

/**
 * Markers back to stored values, matching entities by identity; a marker with nothing to keep is a problem.
 * Only where a read masks (a secret leaf): a marker elsewhere is left for validation to refuse as that
 * field's shape, as a PATCH's is, rather than taken for the stored value in silence.
 */
export function restoreMasks(
  incoming: unknown,
  stored: unknown,
  isSecret: IsSecret,
): { document: unknown; problems: RestoreProblem[] } {
  const problems: RestoreProblem[] = [];
  const walk = (value: unknown, before: unknown, segments: Segment[]): unknown => {
    if (isMarker(value) && isSecret(segments)) {
      if (before !== undefined && before !== null && !isMarker(before)) return clone(before);
      problems.push({
        path: formatPath(segments),
        segments,
        message: 'no stored value to keep for this secret; send the value or a ${VAR} reference',
      });
      return undefined;
    }
    if (typeof value === 'string' && holdsMaskedUrl(value)) {
      // A URL read with its password masked: the stored URL it was read from, else nothing to keep.
      if (typeof before === 'string' && before !== value && maskUrlPasswords(before) === value) return before;
      if (before === value) return value;
      problems.push({
        path: formatPath(segments),
        segments,
        message: `no stored URL to take the credential masked as ${URL_PASSWORD_MASK} from; send the URL with its credential or a \${VAR} reference`,
      });
      return value;
    }
    if (Array.isArray(value)) {
      const pairs = pairItems(segments, value, before);
      return value.map((item, i) => walk(item, pairs[i], [...segments, i]));
    }
    if (isRecord(value)) {
      const out: JsonObject = {};
      const prior = isRecord(before) ? before : {};
      for (const [key, child] of Object.entries(value)) {
        const restored = walk(child, prior[key], [...segments, key]);
        if (restored !== undefined) out[key] = restored;
      }
      return out;
    }
    return value;
  };
  const document = walk(incoming, stored ?? undefined, []);
  return { document, problems };
}

/** A revision stored sealed: `{"__encrypted__": "enc:v1:<key_id>:<base64>"}`. */
export function isSealedDocument(value: unknown): value is { __encrypted__: string } {
  return (
    isRecord(value) &&
    Object.keys(value).length === 1 &&
    typeof value['__encrypted__'] === 'string' &&
    value['__encrypted__'].startsWith('enc:v1:')
  );
}

/** How a sealed document reads where it cannot be opened. */
export function opaqueMarker(sealed: { __encrypted__: string }): Marker {
  const keyId = sealed.__encrypted__.split(':')[2];
  return { encrypted: true, key_id: keyId && keyId !== '' ? keyId : null };
}
