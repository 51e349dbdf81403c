/**
 * Revert and reload (spec "Configuration routes"): writes that store a document the node already holds — an
 * older revision copied whole, or the active one stored again to push changed secrets — so their body carries
 * at most the summary. The config writer on the bus decides as for any write.
 */
import { ApiError } from '../../api-error.js';
import { assertCompanyWriter } from '../../guard.js';
import type { ApiReply, ApiRequest } from '../../types.js';
import { knownKeysAt, unknownKeyPaths } from '../../../schema/index.js';
import { openStored, requireActive, revisionById } from './config.reads.js';
import {
  activeIdOf,
  firstDocumentHint,
  readDryRun,
  readPreconditions,
  readSummary,
} from './config.request.js';
import { submit, type ConfigWriteDeps } from './config.submit.js';

/**
 * Reload and revert store a document the node already holds, so their body may carry only the summary
 * (`{"_summary": "..."}`, as PUT takes it; `{}` or nothing is no summary). Anything else would be ignored,
 * and a caller who sent it (an edited document) would believe it was taken: refused.
 */
function bodySummaryOnly(req: ApiRequest): string | undefined {
  const text = req.body.toString('utf8').trim();
  if (text === '') return undefined;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (typeof body === 'object' && body !== null && !Array.isArray(body)) {
    const keys = Object.keys(body);
    const summary = (body as Record<string, unknown>)['_summary'];
    if (keys.length === 0) return undefined;
    if (keys.length === 1 && typeof summary === 'string') return summary;
  }
  throw new ApiError('invalid_body', {
    detail: `${req.method} ${req.path} takes no document; it stores one this node already holds`,
    hint: 'Send only the summary, in X-Summary or as {"_summary": "..."}; to store another document use PUT or PATCH /config.',
    extra: {
      problems: [
        { path: '', segments: [], kind: 'shape', message: 'this route takes at most {"_summary": "..."}' },
      ],
    },
  });
}

export async function revert(deps: ConfigWriteDeps, req: ApiRequest): Promise<ApiReply> {
  assertCompanyWriter(deps.auth, req.actor);
  const bodySummary = bodySummaryOnly(req);
  const dryRun = readDryRun(req);
  const preconditions = readPreconditions(req, activeIdOf(deps.state()));
  const state = deps.state();
  const target = await revisionById(state, req.params['id'] ?? '');
  const document = openStored(deps, target);
  const summary = readSummary(req, bodySummary, false) || `revert to ${target.revision_id}`;
  const basis = state.active ? requireActive(state) : null;
  return submit(deps, req, {
    document,
    // A stored document is copied whole: every key this build does not know was a newer build's.
    carried: unknownKeyPaths(document, knownKeysAt),
    basis,
    preconditions,
    dryRun,
    summary,
    source: 'api.revert',
    rules: 'runnable',
  });
}

export async function reload(deps: ConfigWriteDeps, req: ApiRequest): Promise<ApiReply> {
  const bodySummary = bodySummaryOnly(req);
  // A dry run is honoured here as on revert: a caller asking for one must never get a stored revision.
  const dryRun = readDryRun(req);
  const preconditions = readPreconditions(req, activeIdOf(deps.state()));
  const state = deps.state();
  if (!state.active)
    throw new ApiError('no_active_revision', {
      variant: preconditions.ifMatch !== undefined ? 'on_if_match' : 'on_write',
      ...(preconditions.ifMatch !== undefined ? { hint: firstDocumentHint('A reload') } : {}),
    });
  const basis = requireActive(state);
  const summary =
    readSummary(req, bodySummary, false) || 'reload: re-store the active revision to push changed secrets';
  const document = openStored(deps, basis);
  return submit(deps, req, {
    document,
    carried: unknownKeyPaths(document, knownKeysAt),
    basis,
    preconditions,
    dryRun,
    summary,
    source: 'api.reload',
    rules: 'runnable',
  });
}
