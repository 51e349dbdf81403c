import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import t from 'tap';
import {
  carryUnknownKeys,
  diffDocuments,
  entityIdentityMatches,
  findEntity,
  formatPath,
  isSealedDocument,
  knownKeysAt,
  listReferences,
  mergePatch,
  opaqueMarker,
  parsePath,
  patchUnknownKeys,
  redact,
  restoreMasks,
  spliceEntity,
  type KnownKeysAt,
} from '../../schema/index.js';

const here = dirname(fileURLToPath(import.meta.url));
const vectors = JSON.parse(
  readFileSync(join(here, '..', '..', '..', 'shared', 'vectors', 'signatures.json'), 'utf8'),
) as {
  json_merge_patch_rfc7396_appendix_a: Array<[unknown, unknown, unknown]>;
};
const secret = (segments: ReadonlyArray<string | number>): boolean =>
  segments.includes('api_keys') || segments[segments.length - 1] === 'token' || segments.includes('mcp_env');
const marker = { encrypted: true, key_id: null };

t.test('merge patch passes every RFC 7396 Appendix A case and leaves its inputs untouched', async (t) => {
  const cases = vectors.json_merge_patch_rfc7396_appendix_a;
  t.equal(cases.length, 15);
  for (const [target, patch, result] of cases) {
    const before = JSON.stringify([target, patch]);
    t.same(mergePatch(target, patch), result, JSON.stringify(patch));
    t.equal(JSON.stringify([target, patch]), before);
  }
});

t.test(
  'merge patch takes a redaction marker whole: its key_id null is the marker’s, not a deletion',
  async (t) => {
    const target = { integrations: { tracker_a: { url: 'https://a.example', token: 'stored-secret' } } };
    t.same(mergePatch(target, { integrations: { tracker_a: { token: marker } } }), {
      integrations: { tracker_a: { url: 'https://a.example', token: marker } },
    });
    t.same(mergePatch({ x: { encrypted: false, key_id: 'k', other: 1 } }, { x: marker }), { x: marker });
    t.same(mergePatch({ x: 1 }, { x: { encrypted: true, key_id: null, more: null } }), {
      x: { encrypted: true },
    });
  },
);

t.test(
  'merge patch with an empty object changes nothing, and applying a patch twice equals once',
  async (t) => {
    const json = fc.jsonValue().filter((v) => v !== null && typeof v === 'object' && !Array.isArray(v));
    fc.assert(fc.property(json, (doc) => JSON.stringify(mergePatch(doc, {})) === JSON.stringify(doc)));
    fc.assert(
      fc.property(
        json,
        json,
        (doc, patch) =>
          JSON.stringify(mergePatch(mergePatch(doc, patch), patch)) ===
          JSON.stringify(mergePatch(doc, patch)),
      ),
    );
    t.pass();
  },
);

t.test('unknown keys in a patch are found, set to null included', async (t) => {
  const known: KnownKeysAt = (segments) =>
    segments.length === 0
      ? new Set(['name', 'providers'])
      : segments.join('.') === 'providers'
        ? new Set(['llm'])
        : 'any';
  t.same(
    patchUnknownKeys({ name: 'x', colour: null, providers: { llm: { anything: 1 }, extra: 2 } }, known).map(
      (u) => u.path,
    ),
    ['colour', 'providers.extra'],
  );
  t.same(
    patchUnknownKeys({ nmae: 'x', providers: { lm: {} } }, known).map((u) => u.message),
    ['unknown field `nmae`; did you mean `name`?', 'unknown field `lm`; did you mean `llm`?'],
    'each carries the did-you-mean validation gives',
  );
});

t.test(
  'a map patched onto a field that holds no keys is left to validation, its keys never quoted',
  async (t) => {
    // A credential written as a map's key in the wrong place must not come back in the refusal.
    const patch = { integrations: { tracker_b: { webhook_secret: { 'sk-live-0123456789': 1 } } } };
    t.same(patchUnknownKeys(patch, knownKeysAt), []);
    t.same(
      patchUnknownKeys({ integrations: { tracker_b: { secret: 1 } } }, knownKeysAt).map((u) => u.path),
      ['integrations.tracker_b.secret'],
      'a key a map of the document cannot hold is still refused',
    );
  },
);

t.test('paths format and parse back, quoting keys that are not identifiers', async (t) => {
  t.equal(formatPath(['roles', 2, 'mcp_env', 'github', 'TOKEN']), 'roles[2].mcp_env.github.TOKEN');
  t.equal(formatPath(['providers', 'llm', 'my.key']), 'providers.llm["my.key"]');
  t.same(parsePath('providers.llm["my.key"].api_keys[0]'), ['providers', 'llm', 'my.key', 'api_keys', 0]);
  const segment = fc.oneof(fc.string({ minLength: 1 }), fc.nat());
  fc.assert(
    fc.property(fc.tuple(fc.string({ minLength: 1 }), fc.array(segment)), ([head, rest]) => {
      const segments = [head, ...rest];
      return JSON.stringify(parsePath(formatPath(segments))) === JSON.stringify(segments);
    }),
  );
});

const stored = {
  name: 'Acme',
  providers: { llm: { main: { type: 'anthropic', api_keys: ['sk-live-1', '${KEY_2}'] } } },
  roles: [
    { name: 'Ada', mcp_env: { github: { TOKEN: 'gh-1' } } },
    { name: 'Bo', handle: 'bo', mcp_env: { github: { TOKEN: 'gh-2' } } },
  ],
  integrations: { tracker_a: { url: 'https://t', token: 'tt' } },
};

t.test('redaction masks secret leaves and keeps whole ${VAR} references visible', async (t) => {
  const read = redact(stored, secret) as typeof stored;
  t.same(read.providers.llm.main.api_keys, [marker, '${KEY_2}']);
  t.same(read.roles[0]!.mcp_env, { github: { TOKEN: marker } });
  t.same(read.integrations.tracker_a, { url: 'https://t', token: marker });
  t.notMatch(JSON.stringify(read), /sk-live-1|gh-1|gh-2|"tt"/);
});

t.test('a redacted read restored against the stored document equals it, edits kept', async (t) => {
  const read = redact(stored, secret) as typeof stored;
  t.same(restoreMasks(read, stored, secret), { document: stored, problems: [] });
  const edited = { ...read, name: 'Acme 2', roles: [read.roles[1], read.roles[0]] };
  const restored = restoreMasks(edited, stored, secret).document as typeof stored;
  t.equal(restored.name, 'Acme 2');
  t.same(
    restored.roles.map((r) => r.mcp_env.github.TOKEN),
    ['gh-2', 'gh-1'],
    'seats matched by handle, not index',
  );
});

t.test('a marker with nothing stored behind it is a problem and never stored', async (t) => {
  const incoming = { roles: [{ name: 'New Seat', mcp_env: { github: { TOKEN: marker } } }] };
  const { document, problems } = restoreMasks(incoming, stored, secret);
  t.same(
    problems.map((p) => p.path),
    ['roles[0].mcp_env.github.TOKEN'],
  );
  t.notMatch(JSON.stringify(document), /encrypted/);
  t.equal(restoreMasks({ token: marker }, null, secret).problems.length, 1);
});

t.test('a sealed revision reads as an opaque marker naming its key', async (t) => {
  const sealed = { __encrypted__: 'enc:v1:k1:AAAA' };
  t.ok(isSealedDocument(sealed));
  t.notOk(isSealedDocument({ __encrypted__: 'plain', other: 1 }));
  t.same(opaqueMarker(sealed), { encrypted: true, key_id: 'k1' });
});

t.test('diff matches seats by identity, cuts at the limit and counts the rest', async (t) => {
  const from = { name: 'A', roles: [{ name: 'Ada' }, { name: 'Bo' }] };
  const to = { name: 'B', roles: [{ name: 'Cy' }, { name: 'Ada' }, { name: 'Bo', goal: 'g' }], mission: 'm' };
  const { changes, changes_total } = diffDocuments(from, to, { isSecret: secret });
  t.same(changes, [
    { path: 'name', kind: 'changed', from: 'A', to: 'B' },
    { path: 'roles[0]', kind: 'added', to: { name: 'Cy' } },
    { path: 'roles[2].goal', kind: 'added', to: 'g' },
    { path: 'mission', kind: 'added', to: 'm' },
  ]);
  t.equal(changes_total, 4);
  const many = Object.fromEntries(Array.from({ length: 600 }, (_, i) => [`k${i}`, i]));
  const big = diffDocuments({}, many, { isSecret: secret, limit: 500 });
  t.same([big.changes.length, big.changes_total], [500, 600]);
  t.same(diffDocuments(stored, stored, { isSecret: secret }), { changes: [], changes_total: 0 });
  t.same(diffDocuments({ policies: ['a'] }, { policies: ['b', 'a'] }, { isSecret: secret }).changes, [
    { path: 'policies', kind: 'changed', from: ['a'], to: ['b', 'a'] },
  ]);
});

t.test(
  'diff compares secrets as stored and shows them redacted: a rotation is one change, markers both sides',
  async (t) => {
    const from = { hook: { token: 'old-secret' }, p: { api_keys: ['k-one'] }, ref: { token: '${A}' } };
    const to = { hook: { token: 'new-secret' }, p: { api_keys: ['k-one', 'k-two'] }, ref: { token: '${B}' } };
    const { changes, changes_total } = diffDocuments(from, to, { isSecret: secret });
    t.same(changes, [
      { path: 'hook.token', kind: 'changed', from: marker, to: marker },
      { path: 'p.api_keys', kind: 'changed', from: [marker], to: [marker, marker] },
      { path: 'ref.token', kind: 'changed', from: '${A}', to: '${B}' },
    ]);
    t.equal(changes_total, 3);
    t.notMatch(JSON.stringify(changes), /secret|k-one|k-two/, 'no value is shown');
    const added = diffDocuments({}, { hook: { token: 'x' } }, { isSecret: secret }).changes;
    t.same(
      added,
      [{ path: 'hook', kind: 'added', to: { token: marker } }],
      'redacted inside an added subtree',
    );
  },
);

t.test('references lists every ${VAR} occurrence with its path, in document order', async (t) => {
  t.same(
    listReferences({ a: '${X}', b: ['x ${Y} ${X}'], c: { d: '$BARE' } }).map((r) => [r.name, r.path]),
    [
      ['X', 'a'],
      ['Y', 'b[0]'],
      ['X', 'b[0]'],
    ],
  );
});

t.test(
  'unknown keys of a newer build are carried back by identity; renamed seats keep nothing',
  async (t) => {
    const known: KnownKeysAt = (segments) => {
      if (segments.length === 0) return new Set(['name', 'roles', 'units']);
      if (segments[0] === 'roles' && segments.length === 2) return new Set(['name', 'handle', 'goal']);
      return 'any';
    };
    const before = {
      name: 'A',
      future_root: 1,
      roles: [
        { name: 'Ada', future_seat: 'x' },
        { name: 'Bo', future_seat: 'y' },
      ],
    };
    const incoming = { name: 'B', roles: [{ name: 'Bo' }, { name: 'Ada Renamed' }] };
    t.same(carryUnknownKeys(incoming, before, known), {
      name: 'B',
      roles: [{ name: 'Bo', future_seat: 'y' }, { name: 'Ada Renamed' }],
      future_root: 1,
    });
    t.same(
      carryUnknownKeys({ name: 'C' }, { name: 'A', roles: [] }, known),
      { name: 'C' },
      'an omitted known key stays deleted',
    );
  },
);

t.test(
  'entities are found anywhere in the tree, spliced in place or appended, and identity is the path id',
  async (t) => {
    const doc = {
      roles: [{ name: 'Chief' }],
      units: [
        {
          name: 'Eng',
          type: 'department',
          roles: [{ name: 'Bo Agent' }],
          children: [{ name: 'Web', type: 'team', roles: [{ name: 'Cy', handle: 'cy' }] }],
        },
      ],
      providers: { llm: { main: { type: 'openai' } } },
      mcp_servers: [{ name: 'docs' }],
    };
    t.same(findEntity(doc, 'roles', 'cy')?.segments, ['units', 0, 'children', 0, 'roles', 0]);
    t.same(findEntity(doc, 'units', 'Web')?.segments, ['units', 0, 'children', 0]);
    t.same(findEntity(doc, 'llm-providers', 'main')?.value, { type: 'openai' });
    t.equal(findEntity(doc, 'mcp-servers', 'nope'), null);
    const spliced = spliceEntity(doc, 'roles', 'bo-agent', { name: 'Bo Agent', goal: 'g' }) as typeof doc;
    t.same(spliced.units[0]!.roles[0], { name: 'Bo Agent', handle: 'bo-agent', goal: 'g' });
    t.same(doc.units[0]!.roles[0], { name: 'Bo Agent' }, 'input untouched');
    const added = spliceEntity(doc, 'mcp-servers', 'search', { command: 'x' }) as typeof doc;
    t.same(added.mcp_servers.at(-1), { name: 'search', command: 'x' });
    t.same(
      Object.keys(
        (spliceEntity(doc, 'llm-providers', 'second', { type: 'anthropic' }) as typeof doc).providers.llm,
      ),
      ['main', 'second'],
    );
    t.throws(() => spliceEntity(doc, 'roles', 'ghost', { name: 'Ghost' }));
    t.notOk(
      entityIdentityMatches('roles', 'bo-agent', { name: 'Bo Renamed' }),
      'omitted handle, changed name',
    );
    t.ok(entityIdentityMatches('roles', 'bo-agent', { name: 'Bo Agent' }));
    t.notOk(entityIdentityMatches('roles', 'bo-agent', { name: 'Bo Agent', handle: 'other' }));
    const handPicked = { name: 'Ada Lovelace', handle: 'ada' };
    t.ok(
      entityIdentityMatches('roles', 'ada', { name: 'Ada Lovelace' }, handPicked),
      'the stored seat by its own name',
    );
    t.notOk(entityIdentityMatches('roles', 'ada', { name: 'Grace Hopper' }, handPicked));
    const kept = spliceEntity({ roles: [handPicked] }, 'roles', 'ada', { name: 'Ada Lovelace', goal: 'g' });
    t.same(
      kept,
      { roles: [{ name: 'Ada Lovelace', handle: 'ada', goal: 'g' }] },
      'the seat at the path keeps it',
    );
    t.notOk(entityIdentityMatches('units', 'Eng', { name: 'Engineering' }));
    t.ok(entityIdentityMatches('llm-providers', 'main', { type: 'openai' }));
    t.ok(entityIdentityMatches('mcp-servers', 'docs', { command: 'x' }));
  },
);
