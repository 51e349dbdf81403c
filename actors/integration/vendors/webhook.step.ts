/**
 * The webhook step of a vendor pass (tracker-b's workspace hook, codehost-b's group hook). Provision
 * registers the hook at the public URL when missing, check reports it; both remember the hooks the service
 * registered (exact address and vendor id) and still sees at the vendor. Disconnect removes each remembered
 * hook and any at the current public URL, so a hook registered before `SVC_PUBLIC_BASE_URL` changed or
 * stopped resolving still goes. A hook at another address is never deleted on a guess (it may be another
 * installation's): when nothing is remembered and one points at the kind's inbound path elsewhere, the pass
 * fails naming it, to be deleted by hand if it is this service's.
 */
import { VendorError } from './vendor-http.js';
import type { PassContext, RegisteredHook } from './pass-context.js';

export interface WebhookCalls {
  readonly product: string;
  /** The step's name in the run (`webhook`, `group webhook`). */
  readonly step: string;
  /** The hooks at the vendor, as `{url, id}` (entries without either are left out). */
  list(): Promise<RegisteredHook[]>;
  /** Registers the hook at `url`; the vendor's id for it, or null when its answer names none. */
  register(url: string): Promise<string | null>;
  remove(id: string): Promise<void>;
}

/** A vendor's list entry as a hook, or null without a url and id. */
export function hookOf(entry: Record<string, unknown>): RegisteredHook | null {
  const url = entry['url'];
  const id = entry['id'];
  if (typeof url !== 'string' || url === '') return null;
  if (typeof id !== 'string' && typeof id !== 'number') return null;
  return String(id) === '' ? null : { url, id: String(id) };
}

/** A vendor's hook address in our words: its origin and path only (a query may carry someone's token). */
function shown(hook: RegisteredHook): string {
  let where = '(an address that does not parse)';
  try {
    const url = new URL(hook.url);
    where = `${url.origin}${url.pathname}`;
  } catch {
    // keep the placeholder
  }
  const id = /^[\w.-]{1,64}$/.test(hook.id) ? ` (id ${hook.id})` : '';
  return `${where}${id}`;
}

const pathOf = (url: string): string | null => {
  try {
    return new URL(url).pathname.replace(/\/+$/, '');
  } catch {
    return null;
  }
};

async function disconnect(ctx: PassContext, calls: WebhookCalls): Promise<void> {
  const listed = await calls.list();
  const remembered = (h: RegisteredHook): boolean => ctx.hooks.some((r) => r.id === h.id && r.url === h.url);
  const ours = listed.filter((h) => h.url === ctx.publicUrl || remembered(h));
  for (const hook of ours) {
    await calls.remove(hook.id);
    ctx.step(calls.step, 'changed', `webhook at ${shown(hook)} removed`);
  }
  ctx.rememberHooks([]);
  if (ours.length > 0) return;
  if (ctx.hooks.length > 0) {
    ctx.step(calls.step, 'ok', 'the webhook it registered is no longer at the vendor');
    return;
  }
  // Nothing remembered (registered by an earlier build, or by hand) and nothing at the public URL: a hook
  // elsewhere for this path may be the service's at an earlier address, or another installation's.
  const elsewhere = listed.filter((h) => pathOf(h.url) === ctx.inboundPath);
  if (elsewhere.length === 0) {
    ctx.step(calls.step, 'ok', `no webhook for ${ctx.inboundPath} to remove`);
    return;
  }
  const why =
    ctx.publicUrl === null
      ? 'the public base URL does not resolve'
      : `none is at the public URL ${ctx.publicUrl}`;
  throw new VendorError(
    `${calls.product}: no webhook this service registered is remembered and ${why}; not removed: ` +
      `${elsewhere.map(shown).join(', ')}. If this service registered it, delete it at the vendor by hand`,
  );
}

export async function webhookStep(ctx: PassContext, calls: WebhookCalls): Promise<void> {
  if (ctx.mode === 'disconnect') return disconnect(ctx, calls);
  if (ctx.publicUrl === null) {
    ctx.step(calls.step, 'missing', 'no public base URL is configured');
    return;
  }
  const publicUrl = ctx.publicUrl;
  const listed = await calls.list();
  // Remembered hooks someone removed at the vendor are forgotten: the vendor's list is the truth.
  const still = ctx.hooks.filter((r) => listed.some((h) => h.id === r.id && h.url === r.url));
  const current = listed.find((h) => h.url === publicUrl);
  const keep = (hook: RegisteredHook | null): void =>
    ctx.rememberHooks(hook === null || still.some((r) => r.id === hook.id) ? still : [...still, hook]);
  if (current) {
    ctx.step(calls.step, 'ok', 'a webhook at the public URL exists');
    keep(current);
  } else if (ctx.mode === 'check') {
    ctx.step(calls.step, 'missing', 'no webhook at the public URL');
    keep(null);
  } else {
    const id = await calls.register(publicUrl);
    ctx.step(calls.step, 'changed', 'webhook at the public URL registered');
    keep(id === null ? null : { url: publicUrl, id });
  }
}
