/**
 * Who a tracker-a or wiki credential acts as: the vendor's "who am I" (tracker-a `myself`, wiki
 * `user/current`), reduced to the identities a webhook payload may name its sender by (cloud account id,
 * self-hosted key and user name, e-mail when the vendor shows it). Display names are not identities.
 */
import { vendorCall, VendorError } from './vendor-http.js';
import { siteApi, type SiteProduct } from './site-api.js';

/** Each product's "who am I", under its REST root. */
export const whoAmIPath: Readonly<Record<SiteProduct, string>> = {
  'tracker-a': '/rest/api/2/myself',
  wiki: '/rest/api/user/current',
};

const identityFields: Readonly<Record<SiteProduct, readonly string[]>> = {
  'tracker-a': ['accountId', 'key', 'name', 'emailAddress'],
  wiki: ['accountId', 'userKey', 'username', 'email'],
};

export async function siteAccount(
  product: SiteProduct,
  settings: Readonly<Record<string, unknown>>,
  timeoutMs: number,
  cloudApiUrl?: string,
): Promise<string[]> {
  const api = siteApi(product, settings, cloudApiUrl);
  const { json } = await vendorCall(
    product,
    `${api.base}${whoAmIPath[product]}`,
    { headers: api.headers },
    timeoutMs,
  );
  const answer = json !== null && typeof json === 'object' ? (json as Record<string, unknown>) : {};
  const ids = identityFields[product]
    .map((field) => answer[field])
    .filter((v): v is string => typeof v === 'string' && v !== '');
  if (ids.length === 0) throw new VendorError(`${product}: the account it answered carries no id`);
  return ids;
}
