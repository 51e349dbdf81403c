/**
 * codehost-a's app-manifest conversion: `POST {api}/app-manifests/{code}/conversions` turns the
 * temporary code of the manifest flow into the app's id, slug, private key and webhook secret.
 * Errors are described in our words; the vendor's body is never quoted.
 */
import { z } from 'zod';

const Conversion = z.looseObject({
  id: z.union([z.number().int(), z.string().min(1)]),
  slug: z.string().min(1),
  pem: z.string().min(1),
  webhook_secret: z.string().min(1).nullable().optional(),
});
export type Conversion = z.infer<typeof Conversion>;

export type ConversionResult =
  | { readonly ok: true; readonly app: Conversion }
  | { readonly ok: false; readonly status: 400 | 503; readonly reason: string };

export async function convertManifest(
  apiUrl: string,
  code: string,
  timeoutMs = 10_000,
): Promise<ConversionResult> {
  let res: Response;
  try {
    res = await fetch(`${apiUrl.replace(/\/+$/, '')}/app-manifests/${encodeURIComponent(code)}/conversions`, {
      method: 'POST',
      headers: { accept: 'application/json', 'user-agent': 'svc' },
      signal: AbortSignal.timeout(timeoutMs),
      // The answer is the app's key and webhook secret: taken from the configured API only, never from
      // wherever a redirect points (no vendor call follows one).
      redirect: 'manual',
    });
  } catch {
    return { ok: false, status: 503, reason: 'The code host could not be reached; try again in a minute.' };
  }
  if (res.status === 404 || res.status === 422)
    return {
      ok: false,
      status: 400,
      reason: 'The code host refused the code: it is unknown, used or expired.',
    };
  if (!res.ok)
    return { ok: false, status: 503, reason: `The code host answered ${res.status}; try again later.` };
  try {
    const app = Conversion.parse(await res.json());
    if (!app.webhook_secret)
      return { ok: false, status: 400, reason: 'The app came back without a webhook secret.' };
    return { ok: true, app };
  } catch {
    return { ok: false, status: 503, reason: 'The code host answered with an app this node cannot read.' };
  }
}
