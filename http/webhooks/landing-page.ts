/**
 * The two landing pages' HTML: one inline style block, no script, every interpolated value escaped.
 * The route lists the style's hash so its policy stays `default-src 'none'` plus that hash.
 */
import { cspHash } from '../headers.js';
import type { ApiReply } from '../types.js';

const STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:#222}' +
  'code{display:block;font-size:1.25rem;padding:.75rem;background:#f3f3f3;border-radius:4px;word-break:break-all}' +
  '.err{color:#a00}';

/** Hashes to list in the route's `cspHashes`. */
export const landingHashes = { style: [cspHash(STYLE)] } as const;

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`=\/]/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A page; `lines` are already-escaped HTML fragments. */
export function page(status: number, title: string, lines: readonly string[]): ApiReply {
  const html =
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>` +
    `<meta name="referrer" content="no-referrer"><style>${STYLE}</style></head><body>` +
    `<h1>${escapeHtml(title)}</h1>${lines.map((l) => `<p>${l}</p>`).join('')}</body></html>`;
  return {
    status,
    headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' },
    body: html,
  };
}
