/**
 * tracker-a and wiki: nothing is created there; a pass proves the token works against the
 * self-hosted edition (the cloud edition is reached through the relay, not checked from here).
 */
import { baseUrl, credential, vendorCall } from './vendor-http.js';
import type { PassContext, VendorPass } from './pass-context.js';

export function sitePass(product: string, whoAmI: string): VendorPass {
  return async (ctx: PassContext) => {
    if (ctx.mode === 'disconnect') {
      ctx.step(
        'remote',
        'skipped',
        `${product} keeps no registration of ours to remove; delete its webhook by hand`,
      );
      return;
    }
    if (typeof ctx.settings['cloud_id'] === 'string' && ctx.settings['url'] === undefined) {
      ctx.step(
        'credentials',
        'skipped',
        `${product} cloud: events arrive through the relay; nothing to check from here`,
      );
      return;
    }
    const base = baseUrl(product, ctx.settings['url']);
    const token = credential(product, 'token', ctx.settings['token']);
    await vendorCall(
      product,
      `${base}${whoAmI}`,
      { headers: { authorization: `Bearer ${token}` } },
      ctx.timeoutMs,
    );
    ctx.step('credentials', 'ok', `${product} accepts the token`);
  };
}
