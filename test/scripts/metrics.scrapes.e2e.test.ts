/**
 * `GET /metrics` scraped again and again on real nodes (ops/metrics.md): every family the table names is there
 * with its type and its labels (plus `node`) on a JetStream node that ran a turn, no counter goes back
 * between scrapes, and requests a client makes up (paths, tokens, delivery ids) add no series and are
 * quoted by none.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { startLlmServer } from '../fixtures/llm/llm-server.js';
import { localProviders } from '../fixtures/llm/providers.js';
import { root } from '../harness/child.js';
import { startNatsServer } from '../harness/nats-server.js';
import { startNode, TOKEN, type ServedNode } from '../harness/serve-node.js';
import { seriesKey, strictExposition, type Sample } from './fixtures/strict-exposition.js';
import { triageTurn } from './fixtures/triage-turn.js';

const SECRET = 'codehost-a-scrapes-secret-0123';
const auth = { authorization: `Bearer ${TOKEN}` };

interface Scrape {
  readonly text: string;
  readonly types: Map<string, string>;
  readonly samples: Sample[];
}

async function scrape(t: Test, node: ServedNode): Promise<Scrape> {
  const res = await fetch(`${node.url}/metrics`, { headers: auth });
  t.equal(res.status, 200, 'scraped');
  const text = await res.text();
  const { problems, types, samples } = strictExposition(text);
  t.same(problems, [], 'the exposition reads strictly');
  return { text, types, samples };
}

/** The `svc_*` rows of ops/metrics.md's table: name, type and the label names (values in brackets left out). */
function documented(): Map<string, { type: string; labels: string[] }> {
  const doc = readFileSync(join(root, 'ops', 'metrics.md'), 'utf8');
  const rows = new Map<string, { type: string; labels: string[] }>();
  for (const line of doc.split('\n')) {
    const m = /^\| `(svc_[a-z_]+)` \| (\w+) \|([^|]*)\|/.exec(line);
    if (m === null) continue;
    const labels = [...m[3]!.replace(/\([^)]*\)/g, '').matchAll(/`([a-z_]+)`/g)].map((l) => l[1]!);
    rows.set(m[1]!, { type: m[2]!, labels });
  }
  return rows;
}

const familyOf = (name: string, types: Map<string, string>): string => {
  for (const suffix of ['_bucket', '_sum', '_count']) {
    const base = name.slice(0, -suffix.length);
    if (name.endsWith(suffix) && types.get(base) === 'histogram') return base;
  }
  return name;
};

/** The counter and histogram series of `earlier` that `later` lost or holds at a lower value. */
function wentBack(earlier: Scrape, later: Scrape): string[] {
  const now = new Map(later.samples.map((s) => [seriesKey(s), s.value]));
  return earlier.samples
    .filter((s) =>
      ['counter', 'histogram'].includes(earlier.types.get(familyOf(s.name, earlier.types)) ?? ''),
    )
    .filter((s) => !((now.get(seriesKey(s)) ?? -1) >= s.value))
    .map((s) => `${seriesKey(s)} ${s.value} -> ${now.get(seriesKey(s))}`);
}

const signedDelivery = (node: ServedNode, body: string, delivery: string, signature?: string) =>
  fetch(`${node.url}/webhooks/codehost-a`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-codehost-a-event': 'issues',
      'x-codehost-a-delivery': delivery,
      'x-codehost-a-signature-256':
        signature ?? `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`,
    },
    body,
  });

t.test(
  'every metric ops/metrics.md names is exposed on a JetStream node with its type and labels, ' +
    'and no counter goes back from one scrape to the next',
  async (t) => {
    const nats = await startNatsServer({ t });
    const llm = await startLlmServer({ wire: 'openai', script: triageTurn });
    t.teardown(() => llm.close());
    const node = await startNode(t, '', `jetstream, url: "${nats.url}"`);
    const scrapes = [await scrape(t, node)];
    const put = await fetch(`${node.url}/config`, {
      method: 'PUT',
      headers: { ...auth, 'content-type': 'application/json', 'x-summary': 'scrapes' },
      body: JSON.stringify({
        name: 'Acme',
        timezone: 'UTC',
        providers: localProviders(llm.baseUrl),
        integrations: { codehost_a: { webhook_secret: SECRET } },
        roles: [{ name: 'Ada' }, { name: 'Cy' }],
      }),
    });
    t.equal(put.status, 201, 'the company is applied');
    await node.run.waitForLog((l) => l.msg === 'config applied');
    scrapes.push(await scrape(t, node));
    const body = JSON.stringify({
      action: 'assigned',
      sender: { login: 'someone' },
      issue: { number: 7, title: 'Bug', assignees: [{ login: 'cy' }] },
    });
    t.equal((await signedDelivery(node, body, 'd-1', `sha256=${'0'.repeat(64)}`)).status, 401);
    t.equal((await signedDelivery(node, body, 'd-1')).status, 200);
    scrapes.push(await scrape(t, node));
    await node.run.waitForLog((l) => l.msg === 'turn completed');
    scrapes.push(await scrape(t, node));
    for (const path of ['/health', '/ready', '/agents', '/nope'])
      await (await fetch(`${node.url}${path}`)).text();
    scrapes.push(await scrape(t, node));

    for (let i = 1; i < scrapes.length; i += 1)
      t.same(wentBack(scrapes[i - 1]!, scrapes[i]!), [], `no counter went back from scrape ${i} to ${i + 1}`);

    const last = scrapes.at(-1)!;
    const rows = documented();
    t.ok(rows.size >= 10, `the table names the node's own families (${rows.size})`);
    for (const [name, row] of rows) {
      t.equal(last.types.get(name), row.type, `${name} is a ${row.type}`);
      const samples = last.samples.filter((s) => familyOf(s.name, last.types) === name);
      t.ok(samples.length > 0, `${name} has samples`);
      const want = [...row.labels, 'node'].sort();
      const off = samples.filter(
        (s) =>
          JSON.stringify(
            Object.keys(s.labels)
              .filter((l) => !(s.name.endsWith('_bucket') && l === 'le'))
              .sort(),
          ) !== JSON.stringify(want),
      );
      t.same(off.map(seriesKey), [], `${name} carries ${want.join(', ')} and nothing else`);
    }
    const undocumented = [...last.types.keys()].filter((n) => n.startsWith('svc_') && !rows.has(n));
    t.same(undocumented, [], 'every svc_ family is in the table');
  },
);

t.test(
  'a thousand requests with made-up paths, tokens and delivery ids add no series and are quoted by none',
  async (t) => {
    const node = await startNode(t);
    const put = await fetch(`${node.url}/config`, {
      method: 'PUT',
      headers: { ...auth, 'content-type': 'application/json', 'x-summary': 'cardinality' },
      body: JSON.stringify({
        name: 'Acme',
        timezone: 'UTC',
        integrations: { codehost_a: { webhook_secret: SECRET } },
        roles: [{ name: 'Ada', kind: 'human', contact: { chat_user_id: 'U1' } }],
      }),
    });
    t.equal(put.status, 201, 'the company is applied');
    await node.run.waitForLog((l) => l.msg === 'config applied');
    // Each kind of request once with a made-up part `x`: POSTs under /webhooks/ (unserved, and the
    // parameters of served patterns), a signed delivery with a made-up id, OTLP and MCP tokens, paths and
    // query strings anywhere.
    const opened = (x: string) =>
      JSON.stringify({ action: 'opened', sender: { login: 's' }, issue: { number: 1, title: x } });
    const post = (path: string) => fetch(`${node.url}${path}`, { method: 'POST', body: '{}' });
    const kinds: ((x: string) => Promise<Response>)[] = [
      (x) => post(`/webhooks/${x}`),
      (x) => post(`/webhooks/wiki/${x}`),
      (x) => post(`/webhooks/codehost-a/${x}`),
      (x) => post(`/webhooks/chat/${x}`),
      (x) => post(`/otlp/${x}/v1/traces`),
      (x) => post(`/mcp/${x}`),
      (x) => signedDelivery(node, opened(x), `${x}-"{}\\,=`),
      (x) => fetch(`${node.url}/${x}`),
      (x) => fetch(`${node.url}/agents/${x}`, { headers: auth }),
      (x) => fetch(`${node.url}/health?${x}=1`),
      (x) => fetch(`${node.url}/webhooks/codehost-a-app?state=${x}`),
    ];
    const made: string[] = [];
    const ask = async (i: number): Promise<void> => {
      const x = `zz${randomUUID().replaceAll('-', '')}`;
      made.push(x);
      await (await kinds[i % kinds.length]!(x)).arrayBuffer();
    };
    for (let i = 0; i < kinds.length; i += 1) await ask(i);
    await scrape(t, node); // so that the scrape itself is counted before
    const before = await scrape(t, node);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < 1_000) await ask((next += 1));
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    const after = await scrape(t, node);
    const own = (s: Scrape) => new Set(s.samples.filter((x) => x.name.startsWith('svc_')).map(seriesKey));
    const known = own(before);
    t.same(
      [...own(after)].filter((k) => !known.has(k)),
      [],
      `no new series after ${made.length - kinds.length} more requests`,
    );
    t.same(
      made.filter((x) => after.text.includes(x)),
      [],
      'no label quotes a made-up part',
    );
    t.same(wentBack(before, after), [], 'no counter went back');
  },
);

t.test(
  'scrapes at once, as two Prometheus servers make them, each read strictly and report no event-loop ' +
    'delay from a window that measured none',
  async (t) => {
    const node = await startNode(t);
    for (let round = 0; round < 3; round += 1) {
      const texts = await Promise.all(
        Array.from({ length: 4 }, async () => (await fetch(`${node.url}/metrics`, { headers: auth })).text()),
      );
      for (const text of texts) {
        t.same(strictExposition(text).problems, [], `round ${round + 1}: the exposition reads strictly`);
        const min = /^nodejs_eventloop_lag_min_seconds\{[^}]*\} (\S+)$/m.exec(text)?.[1];
        t.ok(
          min === undefined || Number(min) < 60,
          `round ${round + 1}: no event-loop delay minimum of ${min} s`,
        );
      }
    }
  },
);
