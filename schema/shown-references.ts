/**
 * A message about a document value, as a log line or an error may show it: each value a `${VAR}` of the
 * written value resolved to is put back as the reference (`workspace ${TB_WS}`, not the workspace), so a
 * line never carries what the secret store or the environment answered. Vendor code works on resolved
 * settings and names what it called (a path, a workspace); the caller that resolved them knows the refs.
 */
import { listRefs, type Resolver } from './env-refs.js';

/**
 * Values this short are left: they would match inside ordinary words and status codes ("answered 401"), and
 * say too little to be a credential.
 */
const SHORTEST_SWAPPED = 3;

/** Every `${NAME}` in the string leaves of `written`. */
function refsIn(written: unknown, into: Set<string>, depth = 0): Set<string> {
  if (typeof written === 'string') for (const name of listRefs(written)) into.add(name);
  else if (depth < 16 && written !== null && typeof written === 'object')
    for (const value of Object.values(written)) refsIn(value, into, depth + 1);
  return into;
}

/**
 * How a resolved value turns up in a message: as is, URL-encoded (a path segment), and for a URL without its
 * trailing slash and as its path alone (a call is described by its path: `wiki GET /prefix/rest/api/content`
 * reads `wiki GET ${WIKI_URL}/rest/api/content`).
 */
function formsOf(value: string): string[] {
  const trimmed = value.trim();
  const forms = [value, trimmed, encodeURIComponent(trimmed), trimmed.replace(/\/+$/, '')];
  try {
    const path = new URL(trimmed).pathname.replace(/\/+$/, '');
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) && path !== '') forms.push(path);
  } catch {
    // Not a URL: the forms above.
  }
  return forms;
}

/**
 * `text` with every value that a reference in `written` resolves to, as is or URL-encoded, replaced by the
 * reference. Longer values first, so one that holds another is swapped whole.
 *
 * @example withReferencesShown('no project TS in workspace acme-7', { workspace: '${TB_WS}' }, r)
 *   // 'no project TS in workspace ${TB_WS}' where r('TB_WS') is 'acme-7'
 */
export function withReferencesShown(text: string, written: unknown, resolve: Resolver): string {
  const swaps: Array<[string, string]> = [];
  for (const name of refsIn(written, new Set())) {
    const value = resolve(name);
    if (value === undefined) continue;
    for (const form of new Set(formsOf(value)))
      if (form.length >= SHORTEST_SWAPPED) swaps.push([form, `\${${name}}`]);
  }
  swaps.sort((a, b) => b[0].length - a[0].length);
  return swaps.reduce((shown, [value, ref]) => shown.replaceAll(value, ref), text);
}
