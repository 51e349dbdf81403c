/** Minting a token per agent seat on provision, shared by the vendors that can (tracker-b, codehost-b). */
import { VendorError } from './vendor-http.js';
import type { PassContext } from './pass-context.js';

/**
 * For each agent seat that holds no token of its own, `mint` asks the vendor for one and answers the value
 * it got with the step's detail; the value goes to `ctx.keep` (sealed by the caller, referenced from the
 * seat) and nowhere else. Without a keyring, or with `unable` (a reason no token could serve), each such seat
 * gets a skipped step instead.
 */
export async function mintSeatTokens(
  ctx: PassContext,
  product: string,
  mint: (handle: string) => Promise<{ readonly value: unknown; readonly detail: string }>,
  unable: string | null = null,
): Promise<void> {
  for (const handle of ctx.agentSeats) {
    if (ctx.seatsWithToken.includes(handle)) continue;
    const name = `token ${handle}`;
    if (!ctx.keep) {
      ctx.step(name, 'skipped', 'no keyring: seat tokens are not minted (nothing could seal them)');
      continue;
    }
    if (unable !== null) {
      ctx.step(name, 'skipped', unable);
      continue;
    }
    const { value, detail } = await mint(handle);
    if (typeof value !== 'string' || value === '')
      throw new VendorError(`${product}: the minted token for ${handle} came back empty`);
    ctx.keep(handle, value);
    ctx.step(name, 'changed', detail);
  }
}
