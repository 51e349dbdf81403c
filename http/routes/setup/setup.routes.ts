/**
 * Every `/setup` route (guarded, reads too), and the `setup_integrations` question. Each route declares the
 * query parameters it reads: any other is 400 `bad_params`, so `DELETE ...?dry_run=true` disconnects nothing.
 */
import { assertCompanyWriter } from '../../guard.js';
import type { RequestHead, RouteDef } from '../../types.js';
import type { Question } from '../query.routes.js';
import type { SetupRouteDeps } from './setup.deps.js';
import { listIntegrations, listRuns, oneIntegration, oneRun, specOf } from './setup.reads.js';
import { disconnect, INPUTS_MAX_BYTES, postInputs, runPass } from './setup.writes.js';

/** `GET /setup/integrations`'s answer (no credential in it) over the socket's query channel, guarded as the route. */
export function setupQuestions(deps: SetupRouteDeps): Map<string, Question> {
  return new Map([
    [
      'setup_integrations',
      { guarded: true, params: [], answer: async () => (await listIntegrations(deps)).body },
    ],
  ]);
}

export function setupRoutes(deps: SetupRouteDeps): RouteDef[] {
  const base = '/setup/integrations';
  // Write rule 10: a non-writer on a managed document is refused before anything is read, the body
  // included, and so is an unknown kind.
  const writer = (req: RequestHead): void => {
    assertCompanyWriter(deps.auth, req.actor);
    specOf(req);
  };
  const kindOnly = (req: RequestHead): void => void specOf(req);
  return [
    { method: 'GET', pattern: base, query: [], handler: () => listIntegrations(deps) },
    { method: 'GET', pattern: `${base}/:kind`, query: [], handler: (req) => oneIntegration(deps, req) },
    {
      method: 'DELETE',
      pattern: `${base}/:kind`,
      query: [],
      // The revision read, as `if_match` in the inputs' body; no setup write creates a document.
      preconditions: ['if-match'],
      beforeBody: writer,
      handler: (req) => disconnect(deps, req),
    },
    {
      method: 'POST',
      pattern: `${base}/:kind/inputs`,
      query: [],
      maxBodyBytes: INPUTS_MAX_BYTES,
      tooLargeHint:
        "Setup inputs are at most 1 MiB; send only the kind's own fields, each credential at most 64 KiB.",
      preconditions: ['if-match'],
      beforeBody: writer,
      handler: (req) => postInputs(deps, req),
    },
    {
      method: 'POST',
      pattern: `${base}/:kind/provision`,
      query: [],
      beforeBody: writer,
      handler: (req) => runPass(deps, req, 'provision'),
    },
    {
      method: 'POST',
      pattern: `${base}/:kind/check`,
      query: [],
      beforeBody: kindOnly,
      handler: (req) => runPass(deps, req, 'check'),
    },
    {
      method: 'GET',
      pattern: `${base}/:kind/runs`,
      query: ['before'],
      handler: (req) => listRuns(deps, req),
    },
    { method: 'GET', pattern: `${base}/:kind/runs/:id`, query: [], handler: (req) => oneRun(deps, req) },
  ];
}
