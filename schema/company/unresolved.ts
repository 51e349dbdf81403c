/**
 * Warnings for `${VAR}` references that resolve to nothing: the write is stored (a secret may be put
 * afterwards), but the operator hears at once which variable is missing and where, instead of meeting a
 * nameless `no_key` on the first turn. Names and paths only, never a value.
 */
import { listReferences } from '../document/references.js';
import { substituteRefs, type Resolver } from '../env-refs.js';
import { cronProblem } from '../schedules/time.js';
import { cutForQuote } from '../text-grammars.js';
import { isTimezone, NOT_CRON } from './fields.js';
import { WarningKind, type CompanyWarning, type Segment } from './problems.js';
import { isRecord } from './walk.js';
import { yamlLines } from './yaml-lines.js';

/**
 * `yamlText`, when the document came as YAML, gives each warning its line, as validation's findings have.
 * `secretStore`: the answering node holds a keyring; without one its secret store refuses every put (503
 * no_keyring), so the advice names only the environment and what a store needs.
 */
export function unresolvedReferences(
  document: unknown,
  resolve: Resolver,
  yamlText?: string,
  secretStore = true,
): CompanyWarning[] {
  const missing = listReferences(document).filter(({ name }) => (resolve(name) ?? '') === '');
  const lineOf = yamlText === undefined || missing.length === 0 ? () => undefined : yamlLines(yamlText);
  return missing.map(({ name: written, path, segments }) => {
    const line = lineOf(segments);
    const name = cutForQuote(written);
    return {
      kind: WarningKind.UnresolvedReference,
      path,
      segments,
      ...(line !== undefined && { line }),
      to: name,
      message: secretStore
        ? `\${${name}} resolves to nothing here (secret store, then environment); put it with svc secrets put ${name} or set it in the node's environment`
        : `\${${name}} resolves to nothing here (environment; this node has no keyring, so no secret store); set it in the node's environment, or give the node a keyring (secrets.keys in its Tier A file) to store it as a secret`,
    };
  });
}

const isScheduleTime = (segments: Segment[]): boolean =>
  (segments.length === 1 && segments[0] === 'timezone') ||
  (segments.length >= 3 &&
    segments.at(-3) === 'schedules' &&
    (segments.at(-1) === 'cron' || segments.at(-1) === 'timezone'));

/**
 * Warnings for a schedule's `cron` or `timezone` (or the company `timezone`) written as a `${VAR}` that
 * resolves to something that cannot be scheduled: validation sees only the reference, and the scheduler
 * then leaves the schedule out without a word (ops/schedules.md: it never fires, `next_run` empty). A
 * reference resolving to nothing is `unresolved_reference`'s. The message names the variable, never its
 * value (one read from the secret store is shown to no one).
 */
export function unschedulableReferences(document: unknown, resolve: Resolver): CompanyWarning[] {
  const seen = new Set<string>();
  const out: CompanyWarning[] = [];
  for (const { path, segments } of listReferences(document)) {
    if (seen.has(path) || !isScheduleTime(segments)) continue;
    seen.add(path);
    const written = valueAt(document, segments);
    if (typeof written !== 'string') continue;
    const value = substituteRefs(written, resolve).trim();
    if (value === '') continue;
    const isCronField = segments.at(-1) === 'cron';
    if (isCronField ? cronProblem(value, 'UTC') === null : isTimezone(value)) continue;
    out.push({
      kind: WarningKind.Admission,
      path,
      segments,
      message: isCronField
        ? `resolves to something that is not a cron expression that ever fires (${NOT_CRON}): the schedule never fires`
        : `resolves to no IANA timezone (such as Europe/Berlin): ${segments.length === 1 ? "every schedule on the company's timezone never fires" : 'the schedule never fires'}`,
    });
  }
  return out;
}

function valueAt(doc: unknown, segments: Segment[]): unknown {
  let at = doc;
  for (const segment of segments)
    at = isRecord(at) || Array.isArray(at) ? (at as Record<string, unknown>)[segment] : undefined;
  return at;
}
