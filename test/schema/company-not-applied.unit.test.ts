/**
 * Settings this release accepts but does nothing with are never accepted silently (ops/config.md "Settings
 * without effect"): each written one is a `not_applied` warning at its path, on a write and on a reload; an
 * absent, empty or zero one is not, and `notification_rate_limit` (applied by the router), the
 * `notification_coalesce_*` pair (the seats' inbox batching) and `skill_variables` (read with the tool
 * skills) never are.
 */
import t from 'tap';
import { validateCompany } from '../../schema/index.js';

const notApplied = (doc: Record<string, unknown>, mode: 'write' | 'runnable' = 'write') =>
  validateCompany({ name: 'Acme', ...doc }, { mode })
    .warnings.filter((w) => w.kind === 'not_applied')
    .map((w) => w.path);

t.test(
  'each setting without effect is a not_applied warning at its path, and the write stays valid',
  async (t) => {
    const doc = {
      notification_coalesce_window_seconds: 20,
      notification_coalesce_max_batch: 10,
      notification_transports: { pager: { url: 'https://pager.example' } },
      extensions: { 'release-notes': { channel: '#rel' } },
      skill_variables: { wiki_base_url: 'https://wiki.example' },
      notification_rate_limit: 30,
    };
    const result = validateCompany({ name: 'Acme', ...doc }, { mode: 'write' });
    t.equal(result.valid, true);
    t.same(notApplied(doc).sort(), ['extensions', 'notification_transports.pager']);
    t.same(notApplied(doc, 'runnable').length, 2, 'a reload of a stored revision says so too');
    const line = validateCompany(
      { name: 'Acme', extensions: { a: {} } },
      { mode: 'write', yamlText: 'name: Acme\nextensions:\n  a: {}\n' },
    ).warnings[0];
    t.match(line, { kind: 'not_applied', path: 'extensions', line: 2, message: /not applied/ });
  },
);

t.test('absent, empty or zero settings warn nothing', async (t) => {
  t.same(notApplied({}), []);
  t.same(
    notApplied({
      notification_coalesce_window_seconds: 0,
      notification_transports: {},
      extensions: {},
      skill_variables: {},
      notification_rate_limit: 5,
      knowledge: { wiki_spaces: ['ENG'] },
    }),
    [],
  );
});

t.test(
  'a webhook transport is applied; one of a type not built is a not_applied warning at its entry',
  async (t) => {
    const doc = {
      notification_transports: {
        ops: { type: 'webhook', url: '${OPS_HOOK}', secret: '${OPS_SECRET}', events: ['human_asked'] },
        fax: { type: 'fax', number: '+1 555' },
      },
    };
    t.same(notApplied(doc), ['notification_transports.fax']);
    t.equal(validateCompany({ name: 'Acme', ...doc }, { mode: 'write' }).valid, true);
  },
);

t.test('a webhook transport that does not parse is refused on a write and warned on a reload', async (t) => {
  const doc = {
    name: 'Acme',
    notification_transports: { ops: { type: 'webhook', url: 'ftp://x', events: [], colour: 'red' } },
  };
  const written = validateCompany(doc, { mode: 'write' });
  t.equal(written.valid, false);
  t.same(
    written.problems.map((p) => p.path).sort(),
    [
      'notification_transports.ops.colour',
      'notification_transports.ops.events',
      'notification_transports.ops.url',
    ],
    'the URL, the empty event list and the unknown field at its own key',
  );
  const reloaded = validateCompany(doc, { mode: 'runnable' });
  t.equal(reloaded.valid, true, 'a stored revision still loads');
  t.ok(reloaded.warnings.some((w) => w.kind === 'admission' && w.path === 'notification_transports.ops.url'));
});

t.test('a transport URL that does not parse is refused on a write, without quoting it', async (t) => {
  const doc = {
    name: 'Acme',
    notification_transports: {
      bad_host: { type: 'webhook', url: 'https://hooks%zz.example/h' },
      bad_port: { type: 'chat', url: 'https://svc:hunter2@chat.example:99999/h' },
      bad_login: { type: 'email', url: 'smtp://svc%ZZ:hunter2@mail.example', from: 'svc@example.com', to: ['ops@example.com'] }, // prettier-ignore
      fine: { type: 'webhook', url: 'https://hooks.example/${HOOK_TOKEN}' },
    },
  };
  const written = validateCompany(doc, { mode: 'write' });
  t.equal(written.valid, false);
  t.same(
    written.problems.map((p) => p.path).sort(),
    [
      'notification_transports.bad_host.url',
      'notification_transports.bad_login.url',
      'notification_transports.bad_port.url',
    ],
    'each URL a sender could not use; a reference in one is checked when it is resolved',
  );
  t.notMatch(JSON.stringify(written.problems), /hunter2|%zz|%ZZ/, 'no message quotes the URL');
});

t.test('a chat transport is applied; one with a field chat hooks do not take is refused', async (t) => {
  const chat = { notification_transports: { channel: { type: 'chat', url: '${CHAT_HOOK}', events: ['human_asked'] } } }; // prettier-ignore
  t.same(notApplied(chat), []);
  t.equal(validateCompany({ name: 'Acme', ...chat }, { mode: 'write' }).valid, true);
  const signed = validateCompany(
    { name: 'Acme', notification_transports: { channel: { type: 'chat', url: 'https://chat.example/h', secret: 's' } } }, // prettier-ignore
    { mode: 'write' },
  );
  t.equal(signed.valid, false, 'chat hooks are not signed: `secret` is an unknown field there');
  t.same(
    signed.problems.map((p) => [p.path, p.kind]),
    [['notification_transports.channel.secret', 'unknown_field']],
  );
});

t.test('pager and email transports are applied; one missing what it needs is refused', async (t) => {
  const doc = {
    notification_transports: {
      oncall: { type: 'pager', routing_key: '${PAGER_KEY}' },
      mail: { type: 'email', url: 'smtps://mail.example:465', username: 'svc', password: '${SMTP_PASSWORD}', from: 'svc <svc@example.com>', to: ['ops@example.com'] }, // prettier-ignore
    },
  };
  t.same(notApplied(doc), []);
  t.equal(validateCompany({ name: 'Acme', ...doc }, { mode: 'write' }).valid, true);
  const broken = validateCompany(
    {
      name: 'Acme',
      notification_transports: {
        oncall: { type: 'pager', url: 'ftp://x' },
        mail: { type: 'email', url: 'https://mail.example', from: 'not an address', to: [] },
      },
    },
    { mode: 'write' },
  );
  t.equal(broken.valid, false);
  t.same(
    broken.problems.map((p) => p.path).sort(),
    [
      'notification_transports.mail.from',
      'notification_transports.mail.to',
      'notification_transports.mail.url',
      'notification_transports.oncall.routing_key',
      'notification_transports.oncall.url',
    ],
    'the key, the URLs (http for a pager, smtp for mail), the sender and the empty recipient list',
  );
});

t.test('an sms transport names an account SID, E.164 numbers and a token kept as a secret', async (t) => {
  const sms = (entry: Record<string, unknown>) =>
    validateCompany(
      {
        name: 'Acme',
        notification_transports: { oncall: { type: 'sms', auth_token: '${SMS_TOKEN}', ...entry } },
      },
      { mode: 'write' },
    );
  const sid = `AC${'0123456789abcdef'.repeat(2)}`;
  t.equal(sms({ account_sid: sid, from: '+4915112345678', to: ['+4915187654321'] }).valid, true);
  t.equal(sms({ account_sid: '${SMS_SID}', from: `MG${'ab'.repeat(16)}`, to: ['+14155550100'] }).valid, true);
  t.equal(sms({ account_sid: sid, from: '+4915112345678', to: ['0151 123'] }).valid, false, 'not E.164');
  t.equal(sms({ account_sid: 'nope', from: '+4915112345678', to: ['+4915187654321'] }).valid, false);
  t.equal(sms({ account_sid: sid, from: '+4915112345678', to: [] }).valid, false, 'someone to text');
});

t.test('transport settings refused once, each with a message that says what is wanted', async (t) => {
  const result = validateCompany(
    {
      name: 'Acme',
      notification_transports: {
        sms: { type: 'sms', account_sid: `AC${'0'.repeat(32)}`, auth_token: 'x', from: 'svc', to: ['+4915100000001'] }, // prettier-ignore
        mail: { type: 'email', url: 'smtp://mail.example', from: 'svc@example.com', to: ['x'] },
        oncall: { type: 'pager', routing_key: '' },
        ops: { type: 'webhook', url: 'https://hooks.example', secret: ' ' },
      },
    },
    { mode: 'write' },
  );
  t.same(result.problems.map((p) => [p.path, p.message]).sort(), [
    [
      'notification_transports.mail.to[0]',
      'an e-mail address (`ops@example.com` or `Ops <ops@example.com>`)',
    ],
    ['notification_transports.oncall.routing_key', 'a credential must not be empty'],
    ['notification_transports.ops.secret', 'a credential must not be empty'],
    ['notification_transports.sms.from', 'a phone number in E.164 form (`+4915112345678`) or a messaging service SID (`MG` and 32 hex digits)'], // prettier-ignore
  ]);
});

t.test(
  'a transport naming an event type or a seat handle that does not exist warns what it means',
  async (t) => {
    const result = validateCompany(
      {
        name: 'Acme',
        roles: [{ name: 'Ada Lovelace' }],
        providers: { llm: { main: { type: 'openai', model: 'gpt' } } },
        notification_transports: {
          ops: {
            type: 'webhook',
            url: 'https://hooks.example',
            events: ['human_asked', 'human_askd', 'agent_turn_progress'],
            seats: ['ada-lovelace', 'Ada Lovelace', 'zed'],
          },
        },
      },
      { mode: 'write' },
    );
    t.equal(result.valid, true, 'stored: a warning, not a refusal');
    t.same(
      result.warnings.map((w) => [w.kind, w.ref, w.path, w.to, w.message]),
      [
        ['dangling_reference', 'event_type', 'notification_transports.ops.events[1]', 'human_askd', 'names no event type svc records, so nothing is sent for it; did you mean `human_asked`?'], // prettier-ignore
        ['dangling_reference', 'event_type', 'notification_transports.ops.events[2]', 'agent_turn_progress', 'names no event type svc records, so nothing is sent for it'], // prettier-ignore
        ['dangling_reference', 'transport_seat', 'notification_transports.ops.seats[1]', 'Ada Lovelace', 'names no seat handle, so no event of it is sent; did you mean `ada-lovelace`?'], // prettier-ignore
        ['dangling_reference', 'transport_seat', 'notification_transports.ops.seats[2]', 'zed', 'names no seat handle, so no event of it is sent'], // prettier-ignore
      ],
    );
  },
);

t.test(
  'embeddings of a known type are applied; an unknown type, no model or an endpointless compatible one is warned',
  async (t) => {
    const embeddings = (block: Record<string, unknown>) => ({ providers: { embeddings: block } });
    const valid = (doc: Record<string, unknown>) =>
      validateCompany({ name: 'Acme', ...doc }, { mode: 'write' }).valid;
    const openai = embeddings({ type: 'openai', model: 'text-embedding-3-small', api_key: '${EMB}', dimensions: 512 }); // prettier-ignore
    t.same(notApplied(openai), [], 'openai with a model: applied');
    t.same(notApplied(embeddings({ model: 'text-embedding-3-small' })), [], 'the type defaults to openai');
    const compatible = embeddings({ type: 'openai-compatible', model: 'nomic', base_url: 'http://emb:8080/v1' }); // prettier-ignore
    t.same(notApplied(compatible), [], 'openai-compatible with its endpoint: applied');
    t.same(notApplied(embeddings({})), [], 'an empty block is nothing written');
    for (const [block, why] of [
      [{ type: 'cohere', model: 'embed-v3' }, /`openai` and `openai-compatible` embeddings wires only/],
      [{ type: 'openai', dimensions: 256 }, /no `model` is set/],
      [{ type: 'openai-compatible', model: 'nomic' }, /`openai-compatible` needs a `base_url`/],
      [{ type: 'openai', model: 'm', dimensions: 8193 }, /`dimensions` is above 8192/],
    ] as const) {
      const doc = embeddings(block);
      t.equal(valid(doc), true, `${JSON.stringify(block)} is stored`);
      const warned = validateCompany({ name: 'Acme', ...doc }, { mode: 'write' }).warnings.filter(
        (w) => w.kind === 'not_applied',
      );
      t.same(
        warned.map((w) => w.path),
        ['providers.embeddings'],
      );
      t.match(warned[0]?.message, why);
      t.match(
        warned[0]?.message,
        /personal memory recalls by words and knowledge base search finds by words only/,
      );
    }
    t.equal(valid(embeddings({ model: 'm', base_url: 'not a url' })), false, 'base_url is a URL');
    for (const similarity of [-0.1, 1.5, '0.3'])
      t.equal(
        valid(embeddings({ model: 'm', min_similarity: similarity })),
        false,
        `min_similarity ${similarity}`,
      );
    t.same(notApplied(embeddings({ model: 'm', min_similarity: 0 })), [], 'min_similarity 0 is applied');
  },
);

t.test('a raw episode cap above what a seat holds, or none, warns that 200 are kept', async (t) => {
  const cap = (n: number) => ({ learning: { episode_lifecycle: { max_raw_episodes_per_agent: n } } });
  const path = 'learning.episode_lifecycle.max_raw_episodes_per_agent';
  t.same(notApplied(cap(500)), [path]);
  t.same(notApplied(cap(0)), [path], 'no cap of its own still keeps 200');
  t.same(notApplied(cap(200)), []);
  t.same(notApplied(cap(50)), []);
  const warning = validateCompany({ name: 'Acme', ...cap(500) }, { mode: 'write' }).warnings.find(
    (w) => w.path === path,
  );
  t.match(warning?.message, /at most 200 raw episodes, so 500 keeps 200/);
  t.equal(validateCompany({ name: 'Acme', ...cap(500) }, { mode: 'write' }).valid, true, 'still valid');
});
