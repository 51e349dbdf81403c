/**
 * tracker-a and wiki: nothing is created there; a pass proves the token works, against the self-hosted
 * site or the cloud edition's API gateway (site-api.ts).
 */
import { vendorCall } from './vendor-http.js';
import type { PassContext, VendorPass } from './pass-context.js';
import { siteApi, type SiteProduct } from './site-api.js';

export function sitePass(product: SiteProduct, whoAmI: string): VendorPass {
  return async (ctx: PassContext) => {
    if (ctx.mode === 'disconnect') {
      ctx.step(
        'remote',
        'skipped',
        `${product} keeps no registration of ours to remove; delete its webhook by hand`,
      );
      return;
    }
    const api = siteApi(product, ctx.settings, ctx.cloudApiUrl);
    await vendorCall(product, `${api.base}${whoAmI}`, { headers: api.headers }, ctx.timeoutMs);
    ctx.step('credentials', 'ok', `${product}${api.cloud ? ' cloud' : ''} accepts the token`);
  };
}
