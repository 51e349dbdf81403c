/**
 * `GET /dashboard` (the shell), `/` redirecting to it, `/static/{path}` and `/favicon.ico`: never guarded
 * (spec "Authentication" 3), served under the dashboard policy (route kind `dashboard`). Hashed assets are
 * cached for a year; the shell and the favicon are revalidated, so a new build is seen on the next load.
 */
import { ApiError } from '../api-error.js';
import type { ApiReply, RouteDef } from '../types.js';
import type { DashboardAssets, StaticFile } from './dashboard.assets.js';

const year = 'public, max-age=31536000, immutable';

function fileReply(file: StaticFile): ApiReply {
  return {
    status: 200,
    headers: { 'Content-Type': file.type, 'Cache-Control': file.immutable ? year : 'no-cache' },
    body: file.body,
  };
}

export function dashboardRoutes(assets: DashboardAssets): RouteDef[] {
  const shell: ApiReply = {
    status: 200,
    headers: { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-cache' },
    body: assets.shell,
  };
  const toShell: ApiReply = { status: 302, headers: { Location: '/dashboard' } };
  const kind = 'dashboard' as const;
  return [
    { method: 'GET', pattern: '/', kind, handler: () => toShell },
    { method: 'GET', pattern: '/dashboard/', kind, handler: () => toShell },
    { method: 'GET', pattern: '/dashboard', kind, handler: () => shell },
    {
      method: 'GET',
      pattern: '/favicon.ico',
      kind,
      handler: () => {
        if (assets.favicon) return fileReply(assets.favicon);
        throw new ApiError('not_found', { detail: 'this node has no dashboard build' });
      },
    },
    {
      method: 'GET',
      pattern: '/static/*',
      kind,
      handler: (req) => {
        const name = req.params['*'] ?? '';
        const file = assets.files.get(name);
        if (file) return fileReply(file);
        throw new ApiError('not_found', {
          detail: `no dashboard asset ${name}`,
          hint: 'Asset names carry a content hash; reload /dashboard for the current ones.',
        });
      },
    },
  ];
}
