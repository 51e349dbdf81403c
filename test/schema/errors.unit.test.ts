import { readFileSync } from 'node:fs';
import t from 'tap';
import { ErrorBody, ErrorCode, errorCatalogue, errorStatuses, errorUse } from '../../schema/errors.js';

const docPath = new URL('../../ops/errors.md', import.meta.url);

/** The (status, code) rows of the coded table in ops/errors.md. */
function documentedRows(): Array<{ status: number; code: string; solve: string }> {
  const rows: Array<{ status: number; code: string; solve: string }> = [];
  for (const line of readFileSync(docPath, 'utf8').split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    const match = /^`([a-z_]+)`$/.exec(cells[2] ?? '');
    if (!/^\d{3}$/.test(cells[1] ?? '') || !match) continue;
    rows.push({ status: Number(cells[1]), code: match[1]!, solve: cells[4] ?? '' });
  }
  return rows;
}

const key = (r: { status: number; code: string }): string => `${r.status} ${r.code}`;

t.test('ops/errors.md lists exactly the catalogue codes, with the same statuses', async (t) => {
  const documented = documentedRows().map(key).sort();
  const catalogued = errorStatuses().map(key).sort();
  t.same(documented, catalogued);
  t.equal(new Set(documented).size, documented.length, 'no row twice');
});

t.test('every documented code has a how-to-solve entry', async (t) => {
  for (const row of documentedRows()) t.ok(row.solve.length > 10, `${row.code} says how to solve`);
});

t.test('the catalogue covers every code of the spec Errors table', async (t) => {
  const spec = [
    'unreadable_body', 'invalid_body', 'invalid_patch', 'validation_error', 'summary_required',
    'invalid_query', 'identity_mismatch', 'not_creatable', 'conflicting_preconditions', 'bad_params',
    'invalid_name', 'op_id_invalid', 'invalid_token', 'config_managed', 'no_route', 'no_active_revision',
    'not_found', 'no_such_entity', 'no_project', 'unknown_query', 'method_not_allowed', 'revision_advanced',
    'unreadable_revision', 'already_configured', 'entity_exists', 'unsupported_patch_media_type', 'draining',
    'no_keyring', 'content_unavailable',
  ]; // prettier-ignore
  // Codes the project adds beyond the spec's table, each for a stated reason: a body over its route's cap
  // (body_too_large: 25 MiB for webhooks, 8 MiB by default; the spec's unreadable_body is for late or cut
  // bodies); the 409 of a rekey naming another key; a reveal this node cannot open; a
  // listener holding its cap of body bytes in flight (overloaded); a backup directory refused, or a
  // backup failing after it started (POST /backup, whose codes the spec leaves open); the code-host app
  // begin route on a node with no setup surface (the spec: every refusal carries a code); a stream upgrade
  // from a page of another origin (cross_origin: the spec is silent on cross-site sockets); a
  // Transfer-Encoding other than chunked alone (RFC 9112 6.1's 400, and its 501 for an unknown coding, which
  // the spec's statuses lack).
  const added = [
    'body_too_large', 'key_not_active', 'unreadable_secret', 'overloaded', 'backup_dir_invalid', 'backup_failed',
    'setup_unavailable', 'cross_origin', 'unsupported_transfer_coding',
  ]; // prettier-ignore
  // The fleet removals: a member still live without force, a peer removal the broker refused.
  const fleet = ['member_live', 'broker_refused'];
  // The work log's retention gestures (the spec leaves their bodies and refusals open; ops/work-tracker.md).
  const retention = [
    'position_trimmed', 'maintenance_open', 'no_maintenance_window', 'nothing_to_trim', 'work_unavailable',
  ]; // prettier-ignore
  // A config write whose store was not acknowledged in time (the spec's codeless 500 made precise); a seat
  // command for an agent seat no node answers for while it moves (the spec's 404 is for unknown seats).
  const failover = ['outcome_unknown', 'seat_unavailable'];
  // The knowledge base and operator surface (the spec leaves their code list open; ops/knowledge-base.md).
  const knowledge = [
    'no_container', 'unknown_tool', 'page_title_taken', 'page_conflict', 'page_has_children',
    'page_parent_invalid', 'unbound_token', 'guard_disabled',
  ]; // prettier-ignore
  // Cancelling a coding run that ended otherwise (the spec has no cancel route; ops/sandboxes.md).
  const sandbox = ['run_ended'];
  // A work or page write whose op_id another gesture used first (the spec's work code list is open).
  const retries = ['op_id_reused'];
  // `If-Match` on a work item or page create, which has no version to match (RFC 9110 13.1.1).
  const creates = ['precondition_failed'];
  // A precondition sent to a write route with no version to compare it with (ops/http.md).
  const unchecked = ['unsupported_precondition'];
  t.same(
    [...ErrorCode.options].sort(),
    [
      ...spec, ...added, ...fleet, ...retention, ...failover, ...knowledge, ...sandbox, ...retries, ...creates, ...unchecked,
    ].sort(),
  ); // prettier-ignore
});

t.test('no_active_revision answers 404 on reads, 409 on writes, 412 on If-Match', async (t) => {
  t.equal(errorUse('no_active_revision').status, 404);
  t.equal(errorUse('no_active_revision', 'on_write').status, 409);
  t.equal(errorUse('no_active_revision', 'on_if_match').status, 412);
  t.throws(() => errorUse('no_route', 'on_write'), RangeError);
});

t.test(
  'only draining (30 s), overloaded, outcome_unknown and seat_unavailable (5 s) ask for Retry-After',
  async (t) => {
    const withRetryAfter = ErrorCode.options.filter(
      (c) => (errorCatalogue[c] as { retryAfterSeconds?: number }).retryAfterSeconds !== undefined,
    );
    t.same(withRetryAfter, ['draining', 'overloaded', 'outcome_unknown', 'seat_unavailable']);
    t.equal(errorCatalogue.seat_unavailable.retryAfterSeconds, 5);
    t.equal(errorCatalogue.outcome_unknown.retryAfterSeconds, 5);
    t.equal(errorCatalogue.draining.retryAfterSeconds, 30);
    t.equal(errorCatalogue.overloaded.retryAfterSeconds, 5);
    t.equal(errorCatalogue.overloaded.retryable, true);
    t.equal(errorCatalogue.draining.retryable, true);
    t.equal(errorCatalogue.invalid_token.retryable, false);
  },
);

t.test('every entry has a detail and a hint', async (t) => {
  for (const code of ErrorCode.options) {
    const e = errorCatalogue[code];
    t.ok(e.detail.length > 0 && e.hint.length > 0, code);
  }
});

t.test('an error body needs a catalogued code and keeps extra fields', async (t) => {
  const ok = ErrorBody.safeParse({ error: 'config_managed', detail: 'd', hint: 'h', managed_by: ['ci'] });
  t.ok(ok.success);
  t.same(ok.success && ok.data.managed_by, ['ci']);
  t.notOk(ErrorBody.safeParse({ error: 'internal_error', detail: 'd', hint: 'h' }).success);
  t.notOk(ErrorBody.safeParse({ error: 'no_route', detail: 'd' }).success);
});
