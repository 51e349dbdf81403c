/** Every `/setup` route (guarded, reads too). */
import type { RouteDef } from '../../types.js';
import type { SetupRouteDeps } from './setup.deps.js';
import { listIntegrations, listRuns, oneIntegration, oneRun } from './setup.reads.js';
import { disconnect, postInputs, runPass } from './setup.writes.js';

export function setupRoutes(deps: SetupRouteDeps): RouteDef[] {
  const base = '/setup/integrations';
  return [
    { method: 'GET', pattern: base, handler: () => listIntegrations(deps) },
    { method: 'GET', pattern: `${base}/:kind`, handler: (req) => oneIntegration(deps, req) },
    { method: 'DELETE', pattern: `${base}/:kind`, handler: (req) => disconnect(deps, req) },
    { method: 'POST', pattern: `${base}/:kind/inputs`, handler: (req) => postInputs(deps, req) },
    { method: 'POST', pattern: `${base}/:kind/provision`, handler: (req) => runPass(deps, req, 'provision') },
    { method: 'POST', pattern: `${base}/:kind/check`, handler: (req) => runPass(deps, req, 'check') },
    { method: 'GET', pattern: `${base}/:kind/runs`, handler: (req) => listRuns(deps, req) },
    { method: 'GET', pattern: `${base}/:kind/runs/:id`, handler: (req) => oneRun(deps, req) },
  ];
}
