/**
 * A provider's `base_url` as a call uses it: its `${VAR}` references resolved at that call (secret store, then
 * environment), as its keys are, so a rotated secret moves the next call. A value that is not an http(s) URL
 * naming a host is never posted to; why is told by the names of the references only, never the value.
 */
import { emptyHost, listRefs, substituteRefs, type Resolver } from '../../../schema/index.js';

export type ResolvedBase =
  | { readonly ok: true; readonly url: string }
  /** `unresolved`: the references in the written value that resolve to nothing (names only). */
  | { readonly ok: false; readonly unresolved: readonly string[] };

export function resolveBaseUrl(written: string, resolve: Resolver): ResolvedBase {
  const url = substituteRefs(written, resolve).trim();
  const unresolved = listRefs(written).filter((name) => (resolve(name) ?? '').trim() === '');
  try {
    // `http:///v1` (from `http://${HOST}/v1` with HOST unset) parses with `v1` as the host.
    if (emptyHost(url)) throw new Error('no host');
    const parsed = new URL(url);
    if ((parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.hostname === '')
      throw new Error('scheme');
  } catch {
    return { ok: false, unresolved };
  }
  return { ok: true, url };
}

/** What an `invalid_base_url` failure adds to its message: the unresolved names, and that nothing was sent. */
export const baseUrlDetail = (unresolved: readonly string[]): string =>
  (unresolved.length > 0
    ? `${unresolved.map((name) => `\${${name}}`).join(', ')} resolves to nothing, `
    : 'not an http(s) URL naming a host once its ${VAR} references are resolved, ') + 'nothing sent';
