/**
 * tracker-b's `username_prefix` is spliced with a seat handle into the member's URL path, so the setup
 * inputs hold it to a path-segment shape (letters, digits, `_ . -`, at most 64), naming the field.
 */
import t from 'tap';
import { company, KEYRING, startSetupNode } from './fixtures/setup-node.js';

type Json = Record<string, unknown>;
const site = { url: 'https://tb.example.test', workspace: 'acme' };

t.test(
  'a username_prefix outside the path-segment shape is 400 naming the field; a good one is stored',
  async (t) => {
    const node = await startSetupNode(t, { tierA: KEYRING });
    await node.putDocument(company());
    // tracker-b and the wiki exclude each other: the fixture's wiki goes first.
    t.equal((await node.call('DELETE', '/setup/integrations/wiki')).status, 200);
    const inputs = (username_prefix: string) =>
      node.call('POST', '/setup/integrations/tracker-b/inputs', {
        body: { values: { ...site, username_prefix } },
      });
    const before = (await (await node.call('GET', '/config/revisions')).json()) as Json;
    for (const [value, kind] of [
      ['agent/', 'shape'],
      ['../admin/', 'shape'],
      ['agent?x=', 'shape'],
      ['agent#', 'shape'],
      ['ag%2Fent', 'shape'],
      ['agent bot-', 'shape'],
      ['agent\u0000', 'shape'],
      ['  ', 'shape'],
      ['a'.repeat(65), 'out_of_range'],
    ] as const) {
      const res = await inputs(value);
      const text = await res.text();
      t.equal(res.status, 400, JSON.stringify(value));
      t.match(JSON.parse(text), {
      error: 'validation_error',
      problems: [{ path: 'values.username_prefix', segments: ['values', 'username_prefix'], kind }],
    }, JSON.stringify(value)); // prettier-ignore
    }
    const after = (await (await node.call('GET', '/config/revisions')).json()) as Json;
    t.equal(after['total'], before['total'], 'nothing was stored');

    for (const good of ['agent-', 'svc.bot_', 'A1', '${TB_PREFIX}', 'p'.repeat(64)]) {
      const res = await inputs(good);
      t.equal(res.status, 201, good);
      const doc = (await (await node.call('GET', '/config')).json()) as {
        integrations: Record<string, Json>;
      };
      t.equal((doc.integrations['tracker_b']!['provisioning'] as Json)['username_prefix'], good);
    }
  },
);
