/**
 * A revision's summary is a "short change note" (spec): every node keeps each revision's metadata, summary
 * included, for as long as `SVC_CONFIG` keeps the revision, so the summary is bounded (1 KiB of UTF-8) on
 * every config write, against a built `svc serve`.
 */
import t from 'tap';
import { startNode, TOKEN } from '../harness/serve-node.js';

const MAX = 1024;
const doc = { name: 'Acme' };

t.test(
  'a config write whose summary passes 1 KiB is refused 400 summary_required, and nothing is stored',
  async (t) => {
    const node = await startNode(t);
    const send = async (
      method: string,
      path: string,
      body: unknown,
      headers: Record<string, string> = {},
    ): Promise<{ status: number; json: Record<string, unknown> }> => {
      const res = await fetch(`${node.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...headers },
        body: body === undefined ? null : JSON.stringify(body),
      });
      return { status: res.status, json: (await res.json()) as Record<string, unknown> };
    };
    const revisions = async (): Promise<number> =>
      (await send('GET', '/config/revisions', undefined)).json['total'] as number;

    const atLimit = await send('PUT', '/config', { ...doc, _summary: 'é'.repeat(MAX / 2) });
    t.equal(atLimit.status, 201, '1 KiB of UTF-8 is a summary');
    const stored = await revisions();

    const refusals: Array<[string, string, unknown, Record<string, string>]> = [
      ['PUT', '/config', { ...doc, _summary: `${'é'.repeat(MAX / 2)}x` }, {}],
      ['PUT', '/config', { ...doc, _summary: 's'.repeat(7 * 1024 * 1024) }, {}],
      ['PUT', '/config', doc, { 'x-summary': 's'.repeat(MAX + 1) }],
      ['PUT', '/config?dry_run=true', { ...doc, _summary: 's'.repeat(MAX + 1) }, {}],
      ['PATCH', '/config', { name: 'Other', _summary: 's'.repeat(MAX + 1) }, {}],
      ['POST', '/config/reload', { _summary: 's'.repeat(MAX + 1) }, {}],
    ];
    for (const [method, path, body, headers] of refusals) {
      const contentType: Record<string, string> =
        method === 'PATCH' ? { 'content-type': 'application/merge-patch+json' } : {};
      const res = await send(method, path, body, { ...contentType, ...headers });
      t.equal(res.status, 400, `${method} ${path}`);
      t.equal(res.json['error'], 'summary_required');
      t.equal(res.json['max_bytes'], MAX);
      t.match(res.json['detail'], /bytes; at most 1024/, 'the detail says how long it is and the bound');
      t.type(res.json['hint'], 'string');
    }
    t.equal(await revisions(), stored, 'no refused write stored a revision');
  },
);
