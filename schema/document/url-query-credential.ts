/**
 * A credential a URL carries in its query or fragment (`?private_token=…`, `?access_token=…`, `?api_key=…`,
 * `?sig=…`): reads show its value as `***` and logs mask it, as they do a URL's password, and admission rule
 * A10 refuses one written anew on a URL the service fetches. A `${VAR}` reference stays visible.
 */
import { onlyReferences } from '../env-refs.js';

/** What a read or a log line shows in place of a credential parameter's value. */
export const QUERY_CREDENTIAL_MASK = '***';

/**
 * Parameter names that carry a credential, case-insensitive: any name ending in token, secret, password,
 * passwd or signature (`private_token`, `client_secret`, `X-Amz-Signature`), an API, access, secret, private,
 * client or subscription key (`api_key`, `apikey`, `api-key`, `subscription-key`), and `key`, `sig`, `pwd`,
 * `pass`, `auth` alone. A `sort_key` or a `page` stays.
 */
const credentialName =
  /^(?:[\w.-]*(?:token|secret|password|passwd|signature)|(?:[\w.-]*[_.-])?(?:api|access|secret|private|client|subscription)[_-]?key|key|sig|pwd|pass|auth)$/i;

/** A URL as text holds it: to the first space, quote, angle bracket or backslash (a JSON escape). */
const urlPattern = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>\\]*/gi;
/** `name=value` after `?`, `&` or `#` (an OAuth fragment carries its token there). */
const paramPattern = /([?&#])([^=&#?\s"'<>\\]+)=([^&#\s"'<>\\]*)/g;

function decoded(name: string): string {
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}

/** Whether a parameter `name=value` carries a literal credential (not empty, not `${VAR}` references only). */
export function isCredentialParam(name: string, value: string): boolean {
  return value !== '' && credentialName.test(decoded(name)) && !onlyReferences(decoded(value));
}

/** The URL with the value of each credential parameter masked. */
function maskUrl(url: string): string {
  if (!url.includes('=')) return url;
  return url.replace(paramPattern, (whole, sep: string, name: string, value: string) =>
    isCredentialParam(name, value) ? `${sep}${name}=${QUERY_CREDENTIAL_MASK}` : whole,
  );
}

/** `text` with the credential parameters of every URL in it masked; the same string when it holds none. */
export function maskQueryCredentials(text: string): string {
  if (!text.includes('://') || !text.includes('=')) return text;
  return text.replace(urlPattern, maskUrl);
}

/** The names of the credential parameters that a URL's query or fragment carries literally. */
export function queryCredentialNames(url: string): string[] {
  const names: string[] = [];
  for (const match of url.matchAll(paramPattern)) {
    const name = match[2] ?? '';
    if (isCredentialParam(name, match[3] ?? '')) names.push(decoded(name));
  }
  return names;
}

/** True when `text` holds a URL with a credential parameter read as the mask (a redacted read sent back). */
export function holdsMaskedQuery(text: string): boolean {
  if (!text.includes('://')) return false;
  for (const [url] of text.matchAll(urlPattern)) {
    for (const match of url.matchAll(paramPattern)) {
      if (match[3] === QUERY_CREDENTIAL_MASK && credentialName.test(decoded(match[2] ?? ''))) return true;
    }
  }
  return false;
}
