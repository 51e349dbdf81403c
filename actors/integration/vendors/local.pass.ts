/** Kinds with nothing to call at a vendor: the pass checks what the service itself needs. */
import { MONITOR_TOKEN_MIN_LENGTH } from '../../../schema/index.js';
import { VendorError } from './vendor-http.js';
import type { PassContext } from './pass-context.js';

const set = (v: unknown): boolean => typeof v === 'string' && v !== '';

export async function localPass(kind: string, ctx: PassContext): Promise<void> {
  await Promise.resolve();
  if (ctx.mode === 'disconnect') {
    ctx.step('remote', 'skipped', `${kind}: nothing registered at the third party by the service`);
    return;
  }
  switch (kind) {
    case 'monitor': {
      const token = ctx.settings['webhook_token'];
      if (!set(token))
        throw new VendorError('monitor: webhook_token is not set: /webhooks/monitor answers 503');
      if ((token as string).length < MONITOR_TOKEN_MIN_LENGTH)
        throw new VendorError(
          `monitor: webhook_token is shorter than ${MONITOR_TOKEN_MIN_LENGTH} characters: /webhooks/monitor answers 503`,
        );
      ctx.step('webhook token', 'ok', 'set and long enough');
      return;
    }
    case 'codehost-a':
      if (!set(ctx.settings['webhook_secret']))
        throw new VendorError('codehost-a: webhook_secret is not set');
      ctx.step('webhook secret', 'ok', 'set');
      return;
    case 'relay':
      if (!set(ctx.settings['value'])) throw new VendorError('relay: integrations.relay_app_id is not set');
      ctx.step('app id', 'ok', 'set');
      return;
    default:
      ctx.step('remote', 'skipped', `${kind}: per-seat apps are checked by their own flow`);
  }
}
