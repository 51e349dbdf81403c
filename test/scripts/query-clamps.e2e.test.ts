/**
 * The spec's clamped read parameters asked of a built `svc serve`: `config_audit`'s `limit` (default 50,
 * 1..500) and `/tokens/breakdown`'s `since_days` (default 7, 1..30). Out of range is clamped and a
 * non-number reads as the default; neither is refused. The clamp functions have their own unit tests;
 * these hold the wire to them (a string as sent, a sign, a space).
 */
import t from 'tap';
import { startNode, TOKEN } from '../harness/serve-node.js';

const auth = { authorization: `Bearer ${TOKEN}` };

async function get(url: string): Promise<{ status: number; json: unknown }> {
  const res = await fetch(url, { headers: auth });
  return { status: res.status, json: await res.json() };
}

t.test(
  'config_audit: limit defaults to 50 and is clamped to 1..500; a non-number is the default',
  async (t) => {
    const node = await startNode(t);
    const revisions = 52;
    for (let i = 0; i < revisions; i += 1) {
      const res = await fetch(`${node.url}/config`, {
        method: 'PUT',
        headers: { ...auth, 'content-type': 'application/json', 'x-summary': `s${i}` },
        body: JSON.stringify({ name: `Acme ${i}` }),
      });
      t.equal(res.status, 201, `revision ${i}`);
    }
    const audit = async (query: string): Promise<unknown[]> => {
      const answer = await get(`${node.url}/query/config_audit${query}`);
      t.equal(answer.status, 200, `${query || 'no limit'}: answered, never refused`);
      return answer.json as unknown[];
    };
    const newest = (await audit('?limit=1'))[0] as { summary: string };
    t.equal(newest.summary, `s${revisions - 1}`, 'newest first');
    const cases: Array<[string, number]> = [
      ['', 50],
      ['?limit=0', 1],
      ['?limit=-1', 1],
      ['?limit=-500', 1],
      ['?limit=7', 7],
      ['?limit=%2B7', 7],
      ['?limit=%207%20', 7],
      ['?limit=2.9', 2],
      ['?limit=501', revisions],
      ['?limit=99999999999999999999', revisions],
      ['?limit=lots', 50],
      ['?limit=', 50],
      ['?limit=0x10', 50],
      ['?limit=1e2', 50],
      ['?limit=Infinity', 50],
      ['?limit=NaN', 50],
    ];
    for (const [query, rows] of cases) t.equal((await audit(query)).length, rows, query || 'no limit');
  },
);

t.test('/tokens/breakdown: since_days defaults to 7 and is clamped to 1..30', async (t) => {
  const node = await startNode(t);
  const cases: Array<[string, number]> = [
    ['', 7],
    ['?since_days=0', 1],
    ['?since_days=-1', 1],
    ['?since_days=1', 1],
    ['?since_days=12', 12],
    ['?since_days=30', 30],
    ['?since_days=31', 30],
    ['?since_days=99999999999999999999', 30],
    ['?since_days=2.9', 2],
    ['?since_days=abc', 7],
    ['?since_days=', 7],
    ['?since_days=0x10', 7],
    ['?since_days=1e1', 7],
  ];
  for (const [query, days] of cases) {
    const answer = await get(`${node.url}/tokens/breakdown${query}`);
    t.equal(answer.status, 200, `${query || 'no since_days'}: answered, never refused`);
    t.equal((answer.json as { since_days: unknown }).since_days, days, query || 'no since_days');
  }
});
