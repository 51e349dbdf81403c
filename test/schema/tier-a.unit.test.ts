import t from 'tap';
import { parseTierA, type TierAResult } from '../../schema/index.js';

const cwd = '/srv/svc';
const parse = (text: string, env: Record<string, string> = {}): TierAResult => parseTierA(text, { env, cwd });
const material = Buffer.alloc(32, 7).toString('base64');

t.test('an empty file gives the embedded defaults: memory bus, every role, node-0', async (t) => {
  const result = parse('');
  t.ok(result.ok);
  if (!result.ok) return;
  t.equal(result.config.providers.queue.type, 'memory');
  t.same(result.config.node, {
    id: 'node-0',
    roles: ['ingress', 'data', 'seats'],
    seat_lease_seconds: 30,
    turn_grace_seconds: 10,
  });
  t.equal(result.config.api.host, '127.0.0.1');
  t.equal(result.config.debug, false);
  t.equal(result.config.api.auth, undefined);
});

t.test('node.id falls back to SVC_NODE_ID, then node-0', async (t) => {
  const fromEnv = parse('api: {port: 0}', { SVC_NODE_ID: 'edge-7' });
  t.equal(fromEnv.ok && fromEnv.config.node.id, 'edge-7');
  const fromFile = parse('node: {id: core-1}', { SVC_NODE_ID: 'edge-7' });
  t.equal(fromFile.ok && fromFile.config.node.id, 'core-1');
});

t.test(
  'an SVC_NODE_ID outside the node id grammar is refused at node.id, as the file’s would be',
  async (t) => {
    for (const id of ['edge 7', 'edge.7', '-edge', 'x'.repeat(65)]) {
      const result = parse('api: {port: 0}', { SVC_NODE_ID: id });
      t.notOk(result.ok, id);
      t.match(!result.ok && result.problems, [{ path: 'node.id', message: /SVC_NODE_ID/ }], id);
    }
    const fromFile = parse('node: {id: core-1}', { SVC_NODE_ID: 'edge 7' });
    t.equal(fromFile.ok && fromFile.config.node.id, 'core-1', 'unused when the file sets node.id');
  },
);

t.test('token values resolve ${ENV} references; bare $NAME stays literal', async (t) => {
  const result = parse(
    'api: {auth: {tokens: [{id: ops, token: "${OPS_TOKEN}"}, {id: lit, token: "$NOT_A_REF_AT_ALL"}]}}',
    { OPS_TOKEN: 's3cret-0123456789', NOT_A_REF_AT_ALL: 'x' },
  );
  t.ok(result.ok);
  if (!result.ok) return;
  t.same(result.config.api.auth?.tokens, [
    { id: 'ops', token: 's3cret-0123456789' },
    { id: 'lit', token: '$NOT_A_REF_AT_ALL' },
  ]);
});

t.test('a token that resolves empty is refused, naming the variable and never a value', async (t) => {
  const result = parse('api: {auth: {tokens: [{id: ops, token: "${MISSING}"}]}}');
  t.notOk(result.ok);
  if (result.ok) return;
  t.same(
    result.problems.map((p) => p.path),
    ['api.auth.tokens[0].token'],
  );
  t.match(result.problems[0]!.message, /\$\{MISSING\}/);
  t.match(result.problems[0]!.message, /empty bearer never authenticates/);
});

t.test('offline (a command run with the node stopped), a token resolving empty is no problem', async (t) => {
  const text = 'api: {auth: {tokens: [{id: ops, token: "${MISSING}"}]}}';
  t.match(parseTierA(text, { env: {}, cwd: '/', offline: true }), { ok: true });
  t.match(parseTierA(text, { env: {}, cwd: '/' }), { ok: false });
});

t.test(
  'a token shorter than 16 characters is refused at start, naming the variable and never a value',
  async (t) => {
    for (const [text, env] of [
      ['api: {auth: {tokens: [{id: ops, token: "${OPS_TOKEN}"}]}}', { OPS_TOKEN: 'a' }],
      ['api: {auth: {tokens: [{id: ops, token: "pa55word-15chr "}]}}', {}],
    ] as const) {
      const result = parse(text, env);
      t.notOk(result.ok, text);
      if (result.ok) continue;
      t.same(
        result.problems.map((p) => p.path),
        ['api.auth.tokens[0].token'],
        text,
      );
      t.match(result.problems[0]!.message, /at least 16 characters/, text);
      t.notMatch(JSON.stringify(result.problems), /pa55word/, 'never the value');
    }
    t.match(parse('api: {auth: {tokens: [{id: ops, token: "${OPS_TOKEN}"}]}}', { OPS_TOKEN: 'a' }), {
      problems: [{ message: /\$\{OPS_TOKEN\}/ }],
    });
    t.ok(parse('api: {auth: {tokens: [{id: ops, token: "${T}"}]}}', { T: 'x'.repeat(16) }).ok, '16 will do');
    const offline = parseTierA('api: {auth: {tokens: [{id: ops, token: x}]}}', {
      env: {},
      cwd: '/',
      offline: true,
    });
    t.ok(offline.ok, 'offline (no token is served) a short one is no problem');
  },
);

t.test('every problem is listed at once with its path', async (t) => {
  const result = parse(
    [
      'debug: maybe',
      'providers: {queue: {type: kafka}}',
      'api: {port: 70000, surprise: 1}',
      'node: {roles: [ingress, chef]}',
    ].join('\n'),
  );
  t.notOk(result.ok);
  if (result.ok) return;
  const paths = result.problems.map((p) => p.path).sort();
  t.same(paths, ['api.port', 'api.surprise', 'debug', 'node.roles[1]', 'providers.queue.type']);
  t.equal(result.problems.find((p) => p.path === 'api.surprise')?.message, 'unknown key');
});

t.test('malformed YAML is a problem, not a crash', async (t) => {
  const result = parse('api: {port: [}');
  t.notOk(result.ok);
  if (result.ok) return;
  t.match(result.problems[0]!.message, /^YAML: /);
});

t.test('queue engines require what they need: url for jetstream, store_dir for embedded', async (t) => {
  const js = parse('providers: {queue: {type: jetstream}}');
  t.same(!js.ok && js.problems.map((p) => p.path), ['providers.queue.url']);
  const embedded = parse('providers: {queue: {type: jetstream-embedded}}');
  t.same(!embedded.ok && embedded.problems.map((p) => p.path), ['stream.store_dir']);
  const ok = parse(
    'providers: {queue: {type: jetstream, url: "nats://127.0.0.1:4222", auth_token: "${T}"}}',
    { T: 'tk' },
  );
  t.equal(ok.ok && ok.config.providers.queue.auth_token, 'tk');
});

t.test('a relative store_dir resolves against the working directory', async (t) => {
  const result = parse('stream: {store_dir: ./data}');
  t.equal(result.ok && result.config.stream.store_dir, '/srv/svc/data');
  const absolute = parse('stream: {store_dir: /var/lib/svc}');
  t.equal(absolute.ok && absolute.config.stream.store_dir, '/var/lib/svc');
});

t.test('the keyring needs 32-byte base64 material and an active key it lists', async (t) => {
  const good = parse(`secrets: {active_key_id: k1, keys: [{id: k1, material: "${material}"}]}`);
  t.ok(good.ok);
  const bad = parse(`secrets: {active_key_id: k9, keys: [{id: k1, material: "c2hvcnQ="}]}`);
  t.same(!bad.ok && bad.problems.map((p) => p.path).sort(), [
    'secrets.active_key_id',
    'secrets.keys[0].material',
  ]);
});

t.test('company_writers must name configured tokens, and token ids are unique', async (t) => {
  const result = parse(
    'api: {auth: {tokens: [{id: a, token: x-0123456789abcdef}, {id: a, token: y-0123456789abcdef}], company_writers: [a, ghost]}}',
  );
  t.same(!result.ok && result.problems.map((p) => p.path).sort(), [
    'api.auth.company_writers[1]',
    'api.auth.tokens[1].id',
  ]);
});

t.test(
  'a token id svc records as its own actor is refused, except by a command that serves no token',
  async (t) => {
    const text =
      'api: {auth: {tokens: [{id: scheduler, token: x-0123456789abcdef}, {id: ops, token: y-0123456789abcdef}]}}';
    const result = parse(text);
    t.same(!result.ok && result.problems.map((p) => p.path), ['api.auth.tokens[0].id']);
    t.match(!result.ok && result.problems[0], { message: /^scheduler is reserved: /, line: 1 });
    t.ok(parseTierA(text, { env: {}, cwd, offline: true }).ok, 'offline it serves no token');
  },
);

t.test('two token ids with the same value are refused, naming both ids and never the value', async (t) => {
  const result = parse(
    'api: {auth: {tokens: [{id: a, token: "${A}"}, {id: b, token: "s3cret-value-0123 "}, {id: c, token: other-0123456789abc}], company_writers: [b]}}',
    { A: 's3cret-value-0123' },
  );
  t.notOk(result.ok, 'b could never authenticate: the guard would always name a');
  if (result.ok) return;
  t.same(
    result.problems.map((p) => p.path),
    ['api.auth.tokens[1].token'],
  );
  t.match(result.problems[0]!.message, /\ba\b.*\bb\b|\bb\b.*\ba\b/);
  t.notOk(JSON.stringify(result.problems).includes('s3cret'), 'never the value');
});

t.test('api.public.port must differ from api.port', async (t) => {
  const result = parse('api: {port: 8080, public: {port: 8080}}');
  t.same(!result.ok && result.problems.map((p) => p.path), ['api.public.port']);
});

t.test(
  'api.public.port 0 is refused: it is not read as unset, nor as a listener binding nothing',
  async (t) => {
    for (const text of ['api: {public: {port: 0}}', 'api: {port: 0, public: {port: "${PUBLIC_PORT}"}}']) {
      const result = parse(text, { PUBLIC_PORT: '0' });
      t.notOk(result.ok, text);
      t.match(
        !result.ok && result.problems,
        [{ path: 'api.public.port', message: /remove api\.public/ }],
        text,
      );
    }
    const set = parse('api: {public: {port: 8443}}');
    t.equal(set.ok && set.config.api.public?.port, 8443);
  },
);

t.test('providers.queue.replicas defaults to 1 and takes 1 to 5 for jetstream', async (t) => {
  const none = parse('');
  t.equal(none.ok && none.config.providers.queue.replicas, 1, 'no providers at all');
  const queueOnly = parse('providers: {queue: {type: jetstream, url: "nats://n1:4222"}}');
  t.equal(queueOnly.ok && queueOnly.config.providers.queue.replicas, 1, 'a queue without the key');
  const three = parse('providers: {queue: {type: jetstream, url: "nats://n1:4222", replicas: 3}}');
  t.equal(three.ok && three.config.providers.queue.replicas, 3);
  const quoted = parse('providers: {queue: {type: jetstream, url: "nats://n1:4222", replicas: "3"}}');
  t.equal(quoted.ok && quoted.config.providers.queue.replicas, 3, 'as text (a ${VAR} gives text)');
  for (const bad of ['0', '6', '2.5', 'three', '"3.0"']) {
    const result = parse(`providers: {queue: {type: jetstream, url: "nats://n1:4222", replicas: ${bad}}}`);
    t.same(
      !result.ok && result.problems.map((p) => p.path),
      ['providers.queue.replicas'],
      `replicas ${bad} is refused`,
    );
  }
});

t.test('replicas other than 1 are refused for the memory and embedded engines, naming why', async (t) => {
  const memory = parse('providers: {queue: {type: memory, replicas: 3}}');
  t.notOk(memory.ok);
  if (!memory.ok) {
    t.same(
      memory.problems.map((p) => p.path),
      ['providers.queue.replicas'],
    );
    t.match(memory.problems[0]!.message, /must be 1 when providers\.queue\.type is memory/);
  }
  const embedded = parse(
    'providers: {queue: {type: jetstream-embedded, replicas: 2}}\nstream: {store_dir: /d}',
  );
  t.notOk(embedded.ok);
  if (!embedded.ok)
    t.match(embedded.problems[0]!.message, /type is jetstream-embedded \(it keeps one copy\)/);
  const defaultEngine = parse('providers: {queue: {replicas: 3}}');
  t.same(!defaultEngine.ok && defaultEngine.problems.map((p) => p.path), ['providers.queue.replicas']);
  const explicitOne = parse(
    'providers: {queue: {type: jetstream-embedded, replicas: 1}}\nstream: {store_dir: /d}',
  );
  t.ok(explicitOne.ok, 'replicas 1 is accepted for every engine');
});

t.test(
  'a NATS url or auth_token without type jetstream is refused: the node would run on its own memory bus',
  async (t) => {
    for (const type of ['', 'type: memory, ', 'type: jetstream-embedded, ']) {
      const result = parse(
        `providers: {queue: {${type}url: "nats://n1:4222", auth_token: "\${T}"}}\nstream: {store_dir: /d}`,
        { T: 'tk' },
      );
      t.notOk(result.ok, `${type || 'no type'} with url and auth_token`);
      if (result.ok) continue;
      t.same(
        result.problems.map((p) => p.path),
        ['providers.queue.url', 'providers.queue.auth_token'],
        type || 'no type',
      );
      t.match(result.problems[0]!.message, /read only when providers\.queue\.type is jetstream/);
      t.notMatch(JSON.stringify(result.problems), /tk/, 'the token value is never quoted');
    }
    const tokenAlone = parse('providers: {queue: {auth_token: x}}');
    t.same(!tokenAlone.ok && tokenAlone.problems.map((p) => p.path), ['providers.queue.auth_token']);
    const jetstream = parse('providers: {queue: {type: jetstream, url: "nats://n1:4222", auth_token: x}}');
    t.ok(jetstream.ok, 'jetstream reads both');
  },
);

t.test('node.seat_lease_seconds sets the seat lease; below 3 s it is refused', async (t) => {
  const ok = parseTierA('node: {seat_lease_seconds: 12}', { env: {}, cwd: '/' });
  t.ok(ok.ok);
  if (ok.ok) t.equal(ok.config.node.seat_lease_seconds, 12);
  const short = parseTierA('node: {seat_lease_seconds: 1}', { env: {}, cwd: '/' });
  t.notOk(short.ok);
  if (!short.ok)
    t.same(
      short.problems.map((p) => p.path),
      ['node.seat_lease_seconds'],
    );
});

t.test('webhooks.compaction defaults to 1,000 records every 60 s; out of bounds it is refused', async (t) => {
  const none = parse('');
  t.same(none.ok && none.config.webhooks, { compaction: { threshold: 1000, every_seconds: 60 } });
  const part = parse('webhooks: {compaction: {threshold: 20}}');
  t.same(
    part.ok && part.config.webhooks.compaction,
    { threshold: 20, every_seconds: 60 },
    'unset keys default',
  );
  const ok = parse('webhooks: {compaction: {threshold: "${N}", every_seconds: 1}}', { N: '10' });
  t.same(ok.ok && ok.config.webhooks.compaction, { threshold: 10, every_seconds: 1 }, 'the lowest bounds');
  const top = parse('webhooks: {compaction: {threshold: 1000000, every_seconds: 3600}}');
  t.ok(top.ok, 'the highest bounds');
  for (const [text, path] of [
    ['{threshold: 9}', 'threshold'],
    ['{threshold: 1000001}', 'threshold'],
    ['{threshold: 20.5}', 'threshold'],
    ['{every_seconds: 0}', 'every_seconds'],
    ['{every_seconds: 3601}', 'every_seconds'],
    ['{every: 5}', 'every'],
  ] as const) {
    const refused = parse(`webhooks: {compaction: ${text}}`);
    t.same(!refused.ok && refused.problems.map((p) => p.path), [`webhooks.compaction.${path}`], text);
  }
});

t.test('node.labels are kept as given for /fleet; a label name outside its grammar is refused', async (t) => {
  const ok = parseTierA('node: {labels: {zone: eu-1, rack: "r7"}}', { env: {}, cwd: '/' });
  t.same(ok.ok && ok.config.node.labels, { zone: 'eu-1', rack: 'r7' });
  const none = parseTierA('node: {id: a}', { env: {}, cwd: '/' });
  t.equal(none.ok && 'labels' in none.config.node, false, 'absent unless set');
  const bad = parseTierA('node: {labels: {"a b": x}}', { env: {}, cwd: '/' });
  t.same(!bad.ok && bad.problems.map((p) => p.path), ['node.labels.a b']);
});

t.test('sandbox isolation defaults to plain processes on the node’s network', async (t) => {
  const result = parse('');
  t.same(result.ok && result.config.sandbox, { isolation: 'process', network: 'host' });
  const isolated = parse('sandbox: {isolation: bubblewrap, network: none}');
  t.same(isolated.ok && isolated.config.sandbox, { isolation: 'bubblewrap', network: 'none' });
  const refused = parse('sandbox: {isolation: container}');
  t.notOk(refused.ok);
});

t.test('numbers and flags may come from ${VAR} references, typed as if written in place', async (t) => {
  const text = [
    'debug: ${SVC_DEBUG}',
    'api: {port: "${PORT}", public: {port: "${PUBLIC_PORT}"}, auth: {disabled: "${NO_AUTH}"}}',
    'node: {seat_lease_seconds: "${LEASE}"}',
  ].join('\n');
  const result = parse(text, {
    SVC_DEBUG: 'true',
    PORT: '9090',
    PUBLIC_PORT: '9091',
    NO_AUTH: 'false',
    LEASE: '12',
  });
  t.ok(result.ok, JSON.stringify(!result.ok && result.problems));
  if (!result.ok) return;
  t.same(
    [
      result.config.debug,
      result.config.api.port,
      result.config.api.public?.port,
      result.config.api.auth?.disabled,
    ],
    [true, 9090, 9091, false],
  );
  t.equal(result.config.node.seat_lease_seconds, 12);
  const same = parse('api: {port: "${PORT}", public: {port: "${PORT}"}}', { PORT: '9090' });
  t.same(!same.ok && same.problems.map((p) => p.path), ['api.public.port'], 'cross-checks see the numbers');
  const wrong = parse('api: {port: "${PORT}"}', { PORT: 'http' });
  t.same(!wrong.ok && wrong.problems.map((p) => p.path), ['api.port']);
});

t.test('key material that fails names the variable it came from', async (t) => {
  const result = parse('secrets: {active_key_id: k1, keys: [{id: k1, material: "${SVC_KEY_K1}"}]}');
  t.notOk(result.ok);
  if (result.ok) return;
  t.match(result.problems, [
    { path: 'secrets.keys[0].material', message: /\$\{SVC_KEY_K1\}, unset or empty/ },
  ]);
});

t.test('a value behind a tag YAML does not know is refused at its line, naming no tag', async (t) => {
  // Unquoted, `!Pa55word` is a tag: the parser would keep only what follows it ('' here, `word` below).
  const result = parse('node:\n  labels:\n    zone: !Pa55word\n    rack: !Pa55 word\n');
  t.notOk(result.ok);
  if (result.ok) return;
  t.same(
    result.problems.map((p) => p.line),
    [3, 4],
  );
  for (const problem of result.problems) {
    t.match(problem.message, /^YAML: .*quote a value that starts with `!`/);
    t.notMatch(problem.message, /Pa55/, 'the tag may be the secret');
  }
  t.match(parse('node: {labels: {zone: "!Pa55word", kind: !!str rack}}'), { ok: true }, 'quoted or known');
});
