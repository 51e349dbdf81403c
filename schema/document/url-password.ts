/**
 * The credential a URL in a document may carry (`https://user:password@host`, a token written as the
 * user, `https://<token>@host`, or one in its query, `?private_token=…`, url-query-credential.ts): reads
 * show the URL with it replaced by `***`, and a redacted URL sent back by a full PUT is swapped for the
 * stored one (write rule 7 for values that are not secret leaves). A `${VAR}` reference stays visible, as
 * on secret leaves.
 */
import { onlyReferences } from '../env-refs.js';
import { holdsMaskedQuery, maskQueryCredentials } from './url-query-credential.js';

/** What a read shows in place of a URL's password (or of a user written alone). */
export const URL_PASSWORD_MASK = '***';

/** `scheme://userinfo@`, the userinfo running to the last `@` before the path (as in url-userinfo.ts). */
const userinfoPattern = /\b([a-z][a-z0-9+.-]*:\/\/)([^/\s]*)@/gi;

const maskUserinfo = (userinfo: string): string => {
  const colon = userinfo.indexOf(':');
  const [user, password] =
    colon < 0 ? [null, userinfo] : [userinfo.slice(0, colon), userinfo.slice(colon + 1)];
  if (password === '' || onlyReferences(password)) return userinfo;
  return user === null ? URL_PASSWORD_MASK : `${user}:${URL_PASSWORD_MASK}`;
};

/** `text` with the credential of every URL in it masked; the same string when it holds none. */
export function maskUrlPasswords(text: string): string {
  const logins = text.includes('@')
    ? text.replace(
        userinfoPattern,
        (_, scheme: string, userinfo: string) => `${scheme}${maskUserinfo(userinfo)}@`,
      )
    : text;
  return maskQueryCredentials(logins);
}

/** True when `text` holds a URL whose credential reads as the mask (a redacted read sent back). */
export function holdsMaskedUrl(text: string): boolean {
  if (holdsMaskedQuery(text)) return true;
  for (const match of text.matchAll(userinfoPattern)) {
    const userinfo = match[2] ?? '';
    if (userinfo === URL_PASSWORD_MASK || userinfo.endsWith(`:${URL_PASSWORD_MASK}`)) return true;
  }
  return false;
}
