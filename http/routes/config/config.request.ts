/**
 * Reading a configuration write: the `dry_run` flag, preconditions, the summary, and the document in
 * JSON or YAML. Each refusal is the spec's code; problems carry their line where the parser knows it.
 */
import {
  cutForQuote,
  parseCompanyJson,
  parseCompanyYaml,
  pathOf,
  type EntityKind,
} from '../../../schema/index.js';
import { activeRevision, type ConfigState } from '../../../projections/index.js';
import { ApiError } from '../../api-error.js';
import { parseTagList, strongTags, weakMatch, type EntityTag } from '../../entity-tags.js';
import type { ApiRequest, RequestHead } from '../../types.js';

/** The active revision's id, which a write's preconditions are read against; null with nothing active. */
export const activeIdOf = (state: ConfigState): string | null => activeRevision(state)?.revision_id ?? null;

/** `dry_run`: `true` or `false` only (write rule 2). */
export function readDryRun(req: RequestHead): boolean {
  const values = req.query.getAll('dry_run');
  if (values.length === 0) return false;
  if (values.length === 1 && (values[0] === 'true' || values[0] === 'false')) return values[0] === 'true';
  throw new ApiError('invalid_query', {
    detail: `dry_run must be true or false, got ${JSON.stringify(cutForQuote(values.join(',')))}`,
    hint: 'Use dry_run=true to check the write without storing it, dry_run=false or nothing to store it.',
  });
}

export interface Preconditions {
  /** Revision id (quotes removed) or `*`. */
  readonly ifMatch?: string;
  readonly ifNoneMatchAny: boolean;
  /** The revision ids an `If-None-Match` list names, for the writer to compare with the active one. */
  readonly ifNoneMatch?: readonly string[];
  /** A create-only entity PUT's entry, which the writer looks for in a revision that beat the write. */
  readonly entityAbsent?: { readonly kind: EntityKind; readonly id: string };
}

/** A tag as a revision id: a revision read's tag (`<id>.stored`) names that revision; ids compare lower-cased. */
const idOfTag = (tag: string): string => revisionOfTag(tag).toLowerCase();

const staleList = (detail: string): ApiError =>
  new ApiError('revision_advanced', {
    detail,
    hint: 'Send the ETag of the revision you read, as given.',
    // The spec's 409 always names the revision stored: refused before any write, none was.
    extra: { stored_revision_id: null },
  });

/**
 * A write's preconditions against the active revision `activeId` (RFC 9110 13.1, write rule 5). `If-Match`
 * proceeds when any strong tag listed names the active revision (a weak tag never matches); one strong tag
 * naming another is the writer's stale write (stored inactive, 409); a list naming none is refused before
 * any write. `If-None-Match` (`*`, or its tags read as revision ids, weakness ignored) goes to the writer,
 * which answers 412 `already_configured` when it names the active revision: decided there, on the pointer
 * its compare-and-set replaces, two racing writers cannot both pass it.
 */
export function readPreconditions(req: RequestHead, activeId: string | null): Preconditions {
  const ifMatch = req.headers['if-match'];
  const ifNoneMatch = req.headers['if-none-match'];
  const none = ifNoneMatch === undefined ? null : parseTagList(ifNoneMatch);
  const ifNoneMatchAny = none?.any === true;
  if (ifMatch !== undefined && ifNoneMatchAny) {
    throw new ApiError('conflicting_preconditions');
  }
  const none_ = none && !none.any && none.tags.length > 0 ? { ifNoneMatch: noneIds(none.tags) } : {};
  if (ifMatch === undefined) return { ifNoneMatchAny, ...none_ };
  const list = parseTagList(ifMatch);
  if (list?.any) return { ifMatch: '*', ifNoneMatchAny, ...none_ };
  const named = list ? strongTags(list).map(idOfTag) : [];
  const active = activeId?.toLowerCase();
  if (active !== undefined && named.includes(active)) return { ifMatch: activeId!, ifNoneMatchAny, ...none_ };
  // Nothing active: the writer answers 412 `no_active_revision` to any If-Match.
  if (active === undefined) return { ifMatch: named[0] ?? ifMatch.trim(), ifNoneMatchAny, ...none_ };
  if (list && list.tags.length === 1 && named.length === 1)
    return { ifMatch: named[0]!, ifNoneMatchAny, ...none_ };
  if (list && list.tags.length > 0 && named.length === 0)
    throw staleList(`If-Match lists only weak tags, which never match (strong comparison, RFC 9110 13.1.1)`);
  throw staleList(`If-Match names no tag of the active revision ${activeId}`);
}

/**
 * The 412 `no_active_revision` hint of a route that changes the active revision (a PATCH, an entity PUT, a
 * reload): without `If-Match` it would be 409 all the same, so only a first whole document helps.
 */
export function firstDocumentHint(what: string): string {
  return `${what} changes the active revision, and none is active: store a first whole document with \`PUT /config\` (\`If-None-Match: *\` to store it only while none is), then send this with its \`ETag\` as \`If-Match\`.`;
}

/** `If-None-Match` on a read: true when it names `etag` (or `*`), compared weakly. */
export function notModified(req: ApiRequest, etagId: string): boolean {
  const header = req.headers['if-none-match'];
  const list = header === undefined ? null : parseTagList(header);
  return list !== null && weakMatch(list, etagId);
}

const REVISION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The revision ids an `If-None-Match` list names (weak or strong alike: it compares weakly); a tag that is
 * no revision id could never name the active revision, so it is not carried. A header is at most 8 KiB,
 * so at most about 215 ids.
 */
const noneIds = (tags: readonly EntityTag[]): string[] => [
  ...new Set(tags.map((t) => idOfTag(t.value)).filter((id) => REVISION_ID.test(id))),
];

export const etagOf = (revisionId: string): string => `"${revisionId}"`;

/**
 * What the ETag of `GET /config/revisions/{id}` names: the id while the revision is active (the tag `GET
 * /config` sends), else the id with its activation (`<id>.stored`, `<id>.superseded-<ms>`), so the tag
 * moves whenever `is_active` or `activated_at` does.
 */
export function revisionTagId(meta: {
  readonly revision_id: string;
  readonly is_active: boolean;
  readonly activated_at: string | null;
}): string {
  if (meta.is_active) return meta.revision_id;
  const at = meta.activated_at === null ? NaN : Date.parse(meta.activated_at);
  return `${meta.revision_id}.${Number.isNaN(at) ? 'stored' : `superseded-${at}`}`;
}

const revisionTag =
  /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.(?:stored|superseded-\d+)$/i;

/** An If-Match naming a revision read's tag names that revision. */
const revisionOfTag = (tag: string): string => revisionTag.exec(tag)?.[1] ?? tag;

export interface ParsedBody {
  readonly document: unknown;
  /** The text when it was YAML, for problem line numbers. */
  readonly yamlText?: string;
  /** `_summary` from the body, already removed from `document`. */
  readonly bodySummary?: string;
}

const isYaml = (contentType: string): boolean => /^(application|text)\/(x-)?yaml\b/i.test(contentType.trim());

/**
 * Parses a JSON or YAML document body within the nesting and alias limits (schema/company); `code`
 * is the refusal for an unparseable one.
 */
export function parseDocumentBody(req: ApiRequest, code: 'invalid_body' | 'invalid_patch'): ParsedBody {
  // A leading byte order mark is read as absent, in JSON as YAML does (RFC 8259 8.1 allows it).
  const text = req.body.toString('utf8').replace(/^\uFEFF/, '');
  const yaml = isYaml(req.headers['content-type'] ?? '');
  const parsed = yaml ? parseCompanyYaml(text) : parseCompanyJson(text);
  if (!parsed.ok) {
    const hint = yaml ? undefined : sentAsYamlHint(req, text, code);
    throw new ApiError(code, {
      detail: `The body is not a readable ${yaml ? 'YAML' : 'JSON'} document.`,
      ...(hint !== undefined ? { hint } : {}),
      extra: { problems: parsed.problems },
    });
  }
  const document = parsed.value;
  const yamlText = yaml ? text : undefined;
  if (document === null || typeof document !== 'object' || Array.isArray(document)) {
    throw new ApiError(code, {
      detail: 'The body must be an object.',
      extra: {
        problems: [{ path: '', segments: [], kind: 'shape', message: 'expected an object at the top level' }],
      },
    });
  }
  const proto = protoKeyAt(document, []);
  if (proto !== null) {
    // Any copy of the document by assignment would drop the key silently (it sets the prototype).
    throw new ApiError(code, {
      detail: 'The body names a field no document has.',
      extra: { problems: [{ path: pathOf(proto), segments: proto, kind: 'unknown_field', message: 'unknown field `__proto__`' }] }, // prettier-ignore
    });
  }
  const { _summary: bodySummary, ...rest } = document as Record<string, unknown>;
  if (bodySummary !== undefined && typeof bodySummary !== 'string') {
    throw new ApiError(code, {
      detail: '_summary must be a string.',
      extra: {
        problems: [{ path: '_summary', segments: ['_summary'], kind: 'shape', message: 'expected a string' }],
      },
    });
  }
  return {
    document: rest,
    ...(yamlText !== undefined ? { yamlText } : {}),
    ...(bodySummary !== undefined ? { bodySummary } : {}),
  };
}

/**
 * The hint for a body read as JSON that is not: a YAML mapping (`curl --data-binary @company.yaml` sends
 * no YAML type) is named with the header that makes it readable; a form body (`curl -d @file`, which also
 * strips the file's line breaks) with curl's flag that keeps them; a YAML merge patch, which PATCH does
 * not take, with its conversion. Undefined: the catalogue's hint.
 */
function sentAsYamlHint(
  req: ApiRequest,
  text: string,
  code: 'invalid_body' | 'invalid_patch',
): string | undefined {
  const mediaType = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  // Declared JSON is JSON with a mistake (`{"name": }` is a YAML mapping too): the problems say where.
  if (/^application\/([a-z.+-]*\+)?json$/.test(mediaType)) return undefined;
  const asYaml = parseCompanyYaml(text);
  if (
    asYaml.ok &&
    asYaml.value !== null &&
    typeof asYaml.value === 'object' &&
    !Array.isArray(asYaml.value)
  ) {
    if (code === 'invalid_patch')
      return 'The body reads as YAML, and a merge patch is JSON: send it as JSON (`svc config patch FILE.yaml` converts it), or PUT the whole document with `Content-Type: application/yaml`.';
    return "The body reads as YAML: send it with `Content-Type: application/yaml` (curl: `--data-binary @FILE -H 'Content-Type: application/yaml'`), or as JSON.";
  }
  if (mediaType !== 'application/x-www-form-urlencoded') return undefined;
  return "`curl -d @FILE` sends a form and removes the file's line breaks: send the file as it is with `--data-binary @FILE` and its type, `-H 'Content-Type: application/yaml'` or `-H 'Content-Type: application/json'`.";
}

/** The path of the first own `__proto__` key in a parsed body (JSON.parse and YAML make it a plain key). */
function protoKeyAt(value: unknown, at: Array<string | number>): Array<string | number> | null {
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = protoKeyAt(item, [...at, i]);
      if (found) return found;
    }
    return null;
  }
  if (value === null || typeof value !== 'object') return null;
  if (Object.prototype.hasOwnProperty.call(value, '__proto__')) return [...at, '__proto__'];
  for (const [key, item] of Object.entries(value)) {
    const found = protoKeyAt(item, [...at, key]);
    if (found) return found;
  }
  return null;
}

/**
 * The longest summary, in UTF-8 bytes. The spec's "short change note": every node keeps each revision's
 * metadata, summary included, for as long as `SVC_CONFIG` keeps the revision, and lists it on every history
 * read, so an unbounded one (a body may be 8 MiB) would grow memory and answers with history.
 */
const SUMMARY_MAX_BYTES = 1024;

/**
 * The write's summary: `X-Summary` wins over `_summary`; required unless the write is a dry run, and at
 * most {@link SUMMARY_MAX_BYTES} on every write (a dry run runs the same checks).
 */
export function readSummary(req: ApiRequest, bodySummary: string | undefined, required: boolean): string {
  const header = summaryHeader(req.headers['x-summary']);
  const summary = (header !== undefined && header.trim() !== '' ? header : bodySummary)?.trim() ?? '';
  if (summary === '' && required) throw new ApiError('summary_required');
  const bytes = Buffer.byteLength(summary, 'utf8');
  if (bytes > SUMMARY_MAX_BYTES) {
    throw new ApiError('summary_required', {
      detail: `The summary is ${bytes} bytes; at most ${SUMMARY_MAX_BYTES} (UTF-8) are kept with a revision.`,
      hint: 'Send a short change note (its first line, say); keep longer notes with the change itself.',
      extra: { max_bytes: SUMMARY_MAX_BYTES },
    });
  }
  return summary;
}

/**
 * `X-Summary` as text. Header values are bytes, and the listener trims bytes outside ASCII off both ends
 * of a value (README, Known limits), so non-ASCII text travels percent-encoded (UTF-8), as `svc config`
 * sends it; a value that still holds raw non-ASCII characters may have lost some and is refused.
 */
function summaryHeader(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (/[^\x20-\x7e\t]/.test(value)) {
    throw new ApiError('summary_required', {
      detail: 'X-Summary holds characters outside ASCII, which do not survive in a header.',
      hint: 'Percent-encode the summary as UTF-8 (`Fix%20caf%C3%A9`), or send it as `_summary` in the body.',
    });
  }
  if (!/%[0-9A-Fa-f]{2}/.test(value)) return value;
  try {
    const decoded = decodeURIComponent(value);
    // Only an encoding of non-ASCII text is decoded: `50%25 rollout` written by hand stays as sent.
    return /[^\x00-\x7f]/.test(decoded) ? decoded : value;
  } catch {
    return value;
  }
}
