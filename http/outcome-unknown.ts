/**
 * The hint of a 503 `outcome_unknown` answer, fitted to the write it answers: how to read that write back
 * and whether a retry is applied once. A work comment's answer must not send its caller to config revisions.
 */

/** A config write (config and setup routes): it names the revision it tried in `revision_id`. */
export const configOutcomeHint =
  'Read the state back before retrying. A config write names the revision it tried in `revision_id`: ' +
  '`GET /config/revisions/{revision_id}` answers when it was stored, and a retry with the same `If-Match` is ' +
  'safe (a first attempt that won makes it 409 `revision_advanced`).';

/** An agent seat's pause, resume or needs clear, which its holder did not acknowledge. */
export const seatOutcomeHint =
  'Read the seat back (GET /agents/{id} shows its live state and open needs) before retrying: pausing or ' +
  'resuming again is harmless.';

const once = 'a retry with the same op_id is applied once.';

/** Route families by path prefix, most specific first; the first match gives the hint. */
const families: ReadonlyArray<readonly [prefix: string, hint: string]> = [
  ['/config', configOutcomeHint],
  ['/setup', configOutcomeHint],
  [
    '/work/files/',
    `Read the file back (GET /work/files/{project}/{path}; its ETag is its version) before retrying; ${once}`,
  ],
  [
    '/work/retention',
    `Read the retention state back (GET /work/retention, /work/retention/maintenance) before retrying; ${once}`,
  ],
  ['/work/inbox', `Read the inbox back (GET /work/inbox, or /work/people/{handle}) before retrying; ${once}`],
  ['/work/views', `Read the views back (GET /work/views/saved) before retrying; ${once}`],
  ['/work/people/', `Read the person back (GET /work/people/{handle}) before retrying; ${once}`],
  [
    '/work',
    `Read the item back (GET /work/{id}, its comments at GET /work/comments?item=) before retrying; ${once}`,
  ],
  ['/pages', `Read the page back (GET /pages/{id}, with its comments) before retrying; ${once}`],
  [
    '/secrets',
    'Read the secret back (GET /secrets/{name} shows whether it is set and when it was last written; never its value) before writing it again.',
  ],
  ['/agents/', seatOutcomeHint],
];

/** Any other write: the catalogue's hint says to read the state back. */
export function outcomeUnknownHint(path: string): string | undefined {
  const lower = path.toLowerCase();
  return families.find(
    ([prefix]) =>
      lower === prefix.replace(/\/$/, '') || lower.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`),
  )?.[1];
}
