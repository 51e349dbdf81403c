/** Security headers on every answer (spec "Conventions"): three CSP policies chosen by route kind. */
import { createHash } from 'node:crypto';
import type { RouteDef, RouteKind } from './types.js';

/** Everything that is not a page: nothing may load, frame, post or rebase. */
export const CSP_NONE = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** Dashboard shell, favicon and `/static/*`: same-origin script, style, font, connect; `data:` images. */
export const CSP_DASHBOARD = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "font-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self' https:",
].join('; ');

/** A landing page: default none, plus the hashes of its own inline style and script. */
export function landingCsp(hashes: RouteDef['cspHashes']): string {
  const quoted = (list: readonly string[] | undefined): string =>
    (list ?? []).map((h) => ` '${h.replace(/^'|'$/g, '')}'`).join('');
  const parts = ["default-src 'none'"];
  if (hashes?.style?.length) parts.push(`style-src${quoted(hashes.style)}`);
  if (hashes?.script?.length) parts.push(`script-src${quoted(hashes.script)}`);
  parts.push("base-uri 'none'", "frame-ancestors 'none'", "form-action 'none'");
  return parts.join('; ');
}

/**
 * The CSP source for an inline block, to list in `cspHashes`.
 * @example cspHash('body{margin:0}') // 'sha256-…'
 */
export function cspHash(inline: string): string {
  return `sha256-${createHash('sha256').update(inline, 'utf8').digest('base64')}`;
}

/** The policy for a route kind (landing pages pass their hashes). */
export function cspFor(kind: RouteKind, hashes?: RouteDef['cspHashes']): string {
  if (kind === 'dashboard') return CSP_DASHBOARD;
  if (kind === 'landing') return landingCsp(hashes);
  return CSP_NONE;
}

/** Header names the gateway owns: a handler's value for them is dropped. */
export const reservedHeaders = new Set([
  'content-security-policy',
  'x-frame-options',
  'x-content-type-options',
  'referrer-policy',
  'content-length',
  'transfer-encoding',
  'connection',
  'date',
]);

/**
 * `Cache-Control: no-store` is forced under these (spec: `/config`; the same documents asked as questions,
 * `/query/config*`; secrets too, they carry values; setup and access, guarded like them, show the
 * deployment's addresses, resolved references and who holds a token).
 */
export function isNoStorePath(path: string): boolean {
  return ['/config', '/query/config', '/secrets', '/setup', '/access'].some(
    (prefix) => path === prefix || path.startsWith(prefix === '/query/config' ? prefix : `${prefix}/`),
  );
}
