/**
 * Where the REST API of a tracker-a or wiki site is, and how a request authenticates there. A self-hosted
 * site (`url`) takes the token as `Bearer`. The cloud edition (`cloud_id`) is reached through the vendor's
 * API gateway (`SVC_CLOUD_SITE_API_URL`, default `https://api.atlassian.com`) under `/ex/<product>/<cloud
 * id>`: with `email` set, the token is an API token sent as Basic `email:token`; without, an OAuth access
 * token sent as `Bearer`.
 */
import { VendorIds } from '../../../schema/index.js';
import { baseUrl, credential, VendorError } from './vendor-http.js';

const CloudSiteApiUrl = 'https://api.atlassian.com';

export type SiteProduct = 'tracker-a' | 'wiki';

interface SiteApi {
  /** The REST root: `…/rest/api/…` paths follow it. */
  readonly base: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly cloud: boolean;
}

/** The gateway's path of each product: the wiki's REST root sits under `/wiki` there. */
const cloudPath: Record<SiteProduct, string> = { 'tracker-a': 'jira', wiki: 'confluence' };
const cloudSuffix: Record<SiteProduct, string> = { 'tracker-a': '', wiki: '/wiki' };

export function siteApi(
  product: SiteProduct,
  settings: Readonly<Record<string, unknown>>,
  cloudApiUrl: string = CloudSiteApiUrl,
): SiteApi {
  const token = (): string => credential(product, 'token', settings['token']);
  const cloudId = settings['cloud_id'];
  if (settings['url'] === undefined && typeof cloudId === 'string') {
    // The setup inputs refuse another shape; a document written by hand or a ${VAR} may still hold one.
    if (!VendorIds.cloud_id.safeParse(cloudId).success)
      throw new VendorError(`${product} cloud: cloud_id is not a site id (letters, digits and -)`);
    const gateway = baseUrl(`${product} cloud`, cloudApiUrl);
    const email = settings['email'];
    const authorization =
      typeof email === 'string' && email !== ''
        ? `Basic ${Buffer.from(`${email}:${token()}`).toString('base64')}`
        : `Bearer ${token()}`;
    return {
      base: `${gateway}/ex/${cloudPath[product]}/${cloudId}${cloudSuffix[product]}`,
      headers: { authorization },
      cloud: true,
    };
  }
  return {
    base: baseUrl(product, settings['url']),
    headers: { authorization: `Bearer ${token()}` },
    cloud: false,
  };
}
