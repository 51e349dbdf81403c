/**
 * `svc config diff` on the terminal: revision ids may be shortened to any unique prefix (as `git` does), and
 * the answer of `GET /config/revisions/{id}/diff` is printed grouped by entity (`roles[2]`, `providers`, …)
 * with `+` added, `-` removed, `~` changed, or as the route's JSON, or YAML.
 */
import type { NodeContext } from './cli-args.js';
import { requestNode } from './cli-http.js';
import { describeRefusal } from './cli-refusal.js';
import { anyJson, list, nodeJson, num, obj, readAnswer, str } from './cli-shape.js';
import { UsageError } from './cli-usage.js';
import { queryRanges } from '../schema/index.js';

/** A listing page as large as the route takes: most histories resolve in one request. */
const listingPage = queryRanges.revisionsLimit.max;

const RevisionsPage = obj({ revisions: list(obj({ revision_id: str })), total: num });

const fullId = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A usage mistake in what was asked (no such revision, an ambiguous prefix). */
export class RevisionLookupError extends Error {
  override name = 'RevisionLookupError';
}

/**
 * The full id a prefix names, by reading the revision list (its largest page at a time); full ids pass through,
 * and `active` where the route takes it (`--against`). Null when the node could not be reached or refused the
 * listing (already reported on `err`).
 */
export async function resolveRevision(
  ctx: NodeContext,
  id: string,
  opts: { readonly activeAllowed?: boolean } = {},
): Promise<string | null> {
  if ((id === 'active' && opts.activeAllowed === true) || fullId.test(id)) return id;
  // Sent, `If-Match: "active"` matched no revision (the write was stored inactive) and `revert active` a 404.
  if (id === 'active')
    throw new UsageError(
      'active is not a revision id or a prefix of one (only --against takes it): `svc config revisions --limit 1` prints the active id',
    );
  // A malformed id is a bad flag or argument (exit 2), told before any request; a well-formed one that
  // names no revision, or several, is the node's answer (exit 1).
  if (!/^[0-9a-f-]{4,}$/i.test(id))
    throw new UsageError(`${id} is not a revision id or a prefix of one (4 hex digits at least)`);
  const matches: string[] = [];
  for (let offset = 0; ; offset += listingPage) {
    const res = await requestNode(
      'config',
      ctx,
      'GET',
      `/config/revisions?limit=${listingPage}&offset=${offset}`,
    );
    if (res === null) return null;
    if (!res.ok) {
      // Worded as every refusal is (code, detail, hint): the status alone left `draining` or a token's scope unsaid.
      const refusal = describeRefusal(res.status, await res.text());
      ctx.err.write(
        refusal.replace(/^svc config: /, `svc config: listing revisions to resolve ${id} was refused: `),
      );
      return null;
    }
    const page = readAnswer(RevisionsPage, await res.text(), 'a page of revisions', {
      status: res.status,
      asIs: false,
    });
    for (const r of page.revisions)
      if (r.revision_id.startsWith(id.toLowerCase())) matches.push(r.revision_id);
    if (page.revisions.length === 0 || offset + page.revisions.length >= page.total) break;
  }
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0) throw new RevisionLookupError(`no revision id starts with ${id}`);
  throw new RevisionLookupError(
    `${id} names ${matches.length} revisions (${matches.join(', ')}): give more of it`,
  );
}

interface Change {
  readonly path: string;
  readonly kind: 'added' | 'removed' | 'changed';
  readonly from?: unknown;
  readonly to?: unknown;
}
interface DiffAnswer {
  readonly from: string;
  readonly to: string;
  readonly changes: Change[];
  readonly changes_total: number;
}

/** `roles[2].goal` → `roles[2]`; `providers.llm.x.model` → `providers`; `name` → `(company)`. */
export function entityOf(path: string): string {
  const m = /^([^.[]+)(\[\d+\])?/.exec(path);
  if (m === null) return '(company)';
  if (m[2] !== undefined) return `${m[1]}${m[2]}`;
  return path.includes('.') || path.includes('[') ? m[1]! : '(company)';
}

/** The fields of a diff answer the text prints (a change's kind is read as the route words it). */
const DiffShape = obj({
  from: str,
  to: str,
  changes: list(obj({ path: str, kind: str, from: anyJson, to: anyJson })),
  changes_total: num,
});

const shown = (value: unknown): string => {
  const text = JSON.stringify(value) ?? 'null';
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
};

/** The diff grouped per entity, one line per change. */
export function renderDiffText(answer: DiffAnswer): string {
  const lines = [`diff ${answer.from} -> ${answer.to}: ${answer.changes_total} change(s)`];
  const groups = new Map<string, Change[]>();
  for (const c of answer.changes) {
    const key = entityOf(c.path);
    groups.set(key, [...(groups.get(key) ?? []), c]);
  }
  for (const [entity, changes] of groups) {
    lines.push('', entity);
    for (const c of changes) {
      if (c.kind === 'added') lines.push(`  + ${c.path}: ${shown(c.to)}`);
      else if (c.kind === 'removed') lines.push(`  - ${c.path}: ${shown(c.from)}`);
      else lines.push(`  ~ ${c.path}: ${shown(c.from)} -> ${shown(c.to)}`);
    }
  }
  if (answer.changes.length < answer.changes_total)
    lines.push('', `(${answer.changes_total - answer.changes.length} more not shown)`);
  return `${lines.join('\n')}\n`;
}

/** What prints a diff answer's text in `format`; the YAML writer is loaded only for YAML (a client's start-up). */
export async function diffRenderer(format: 'text' | 'yaml' | 'json'): Promise<(text: string) => string> {
  if (format === 'json') return (text) => (nodeJson(200, text), text.endsWith('\n') ? text : `${text}\n`);
  if (format === 'text')
    return (text) => renderDiffText(readAnswer(DiffShape, text, 'a diff', { asIs: false }) as DiffAnswer);
  const { stringify } = await import('yaml');
  return (text) => stringify(nodeJson(200, text));
}
