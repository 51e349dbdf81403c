/**
 * The provider registry against local servers speaking the real wires: chain resolution, key
 * rotation and cooldowns, fallback along the chain with its events, `llm_unavailable`, and the
 * in-place swap of an apply.
 */
import t from 'tap';
import { LlmServerError, LlmUnavailableError } from '../../../actors/index.js';
import { CredentialPoolSnapshot } from '../../../schema/index.js';
import { ask, drain } from './helpers.js';
import { doc, harness, server } from './registry-harness.js';

t.test(
  '429 with Retry-After rotates to the next key in the same call; the cooldown shows in the snapshot',
  async (t) => {
    const llm = await server(t, {
      wire: 'openai',
      script: [
        { kind: 'status', status: 429, headers: { 'retry-after': '20' } },
        { kind: 'text', text: 'answered by B' },
        { kind: 'text', text: 'B again' },
      ],
    });
    const h = harness(
      doc({
        main: { type: 'openai', model: 'gpt-x', base_url: llm.baseUrl, api_keys: ['${KEY_A}', '${KEY_B}'] },
      }),
    );
    const out = await drain(h.registry.call(['main'], ask('q')));
    t.equal(out.result?.text, 'answered by B');
    t.same(
      llm.requests.map((r) => r.key),
      ['sk-secret-aaaa', 'sk-secret-bbbb'],
    );
    const snapshot = CredentialPoolSnapshot.parse(h.registry.snapshot());
    t.match(snapshot['main'], {
      provider: 'main',
      type: 'openai',
      model: 'gpt-x',
      keys: [
        {
          ref: 'KEY_A',
          index: 0,
          reason: 'rate_limited',
          failures: 1,
          in_flight: 0,
          cooling_until: new Date(h.now() + 20_000).toISOString(),
        },
        { ref: 'KEY_B', index: 1, reason: null, cooling_until: null, in_flight: 0 },
      ],
    });
    t.same(h.events, [], 'no fallback: the provider answered');
    await drain(h.registry.call(['main'], ask('q')));
    t.equal(llm.requests[2]?.key, 'sk-secret-bbbb', 'the cooling key is not used');
    t.notMatch(JSON.stringify(snapshot), /sk-secret/);
  },
);

t.test('401 cools a key with a backoff that doubles, and a success clears it', async (t) => {
  const primary = await server(t, {
    wire: 'anthropic',
    script: [
      { kind: 'status', status: 401 },
      { kind: 'status', status: 403 },
      { kind: 'text', text: 'ok now' },
    ],
  });
  const spare = await server(t, { wire: 'openai', script: () => ({ kind: 'text', text: 'spare' }) });
  const h = harness(
    doc(
      {
        primary: { type: 'anthropic', model: 'c', base_url: primary.baseUrl, api_keys: ['${KEY_C}'] },
        spare: { type: 'openai-compatible', model: 'l', base_url: spare.baseUrl },
      },
      ['primary', 'spare'],
    ),
  );
  const key = () => h.registry.snapshot()['primary']!.keys[0]!;
  const cooldown = () => Date.parse(key().cooling_until!) - h.now();

  t.equal((await drain(h.registry.call(['primary', 'spare'], ask('q')))).result?.text, 'spare');
  t.equal(cooldown(), 60_000);
  t.match(key(), { reason: 'auth_refused', failures: 1 });
  h.advance(60_001);
  t.equal((await drain(h.registry.call(['primary', 'spare'], ask('q')))).result?.text, 'spare');
  t.equal(cooldown(), 120_000, 'the second refusal in a row doubles the backoff');
  t.match(key(), { failures: 2 });
  h.advance(120_001);
  t.equal((await drain(h.registry.call(['primary', 'spare'], ask('q')))).result?.text, 'ok now');
  t.match(key(), { cooling_until: null, reason: null, failures: 0 });
  t.equal(primary.requests.length, 3, 'the cooling key was never sent while it cooled');
});

t.test(
  'when every key cools, the next provider answers and a provider_fallback event is recorded',
  async (t) => {
    const first = await server(t, {
      wire: 'anthropic',
      script: [
        { kind: 'status', status: 429, headers: { 'retry-after': '30' } },
        { kind: 'status', status: 429 },
      ],
    });
    const second = await server(t, {
      wire: 'openai',
      script: [
        { kind: 'text', text: 'from second' },
        { kind: 'text', text: 'again' },
      ],
    });
    const h = harness(
      doc({
        first: { type: 'anthropic', model: 'c', base_url: first.baseUrl, api_keys: ['${KEY_A}', '${KEY_B}'] },
        second: { type: 'openai', model: 'g', base_url: second.baseUrl, api_keys: ['${KEY_C}'] },
      }),
    );
    const chain = h.registry.resolve('someone');
    const out = await drain(
      h.registry.call(chain, ask('q'), {
        seat: 'ada',
        trace: { trace_id: 'trace-1', parent_span_id: 'span-0' },
      }),
    );
    t.equal(out.result?.text, 'from second');
    t.equal(out.result?.provider, 'second');
    t.equal(first.requests.length, 2, 'both keys of the first provider were tried');
    t.equal(h.events.length, 1);
    t.match(h.events[0], {
      type: 'provider_fallback',
      category: 'system',
      source: 'node-0/providers',
      actor: 'ada',
      agent_id: 'ada',
      trace_id: 'trace-1',
      parent_span_id: 'span-0',
      failed: false,
      payload: {
        from: 'first',
        to: 'second',
        reason: 'keys_cooling',
        status: 429,
        chain: ['first', 'second'],
        retry_at: String,
      },
    });
    const retryAt = Date.parse((h.events[0]!.payload as { retry_at: string }).retry_at);
    t.ok(Number.isFinite(retryAt), 'retry_at: when the first key of the passed-over entry stops cooling');
    // The next call skips the cooling provider without asking it.
    await drain(h.registry.call(chain, ask('q')));
    t.equal(first.requests.length, 2);
    t.match(h.events[1], {
      type: 'provider_fallback',
      payload: { from: 'first', reason: 'keys_cooling', status: null },
    });
  },
);

t.test('a 500 falls back to the next provider at once, leaving the key healthy', async (t) => {
  const broken = await server(t, { wire: 'openai', script: [{ kind: 'status', status: 500 }] });
  const backup = await server(t, { wire: 'anthropic', script: [{ kind: 'text', text: 'backup' }] });
  const h = harness(
    doc({
      broken: { type: 'openai', model: 'g', base_url: broken.baseUrl, api_keys: ['${KEY_A}', '${KEY_B}'] },
      backup: { type: 'anthropic', model: 'c', base_url: backup.baseUrl },
    }),
  );
  const out = await drain(h.registry.call(['broken', 'backup'], ask('q')));
  t.equal(out.result?.text, 'backup');
  t.equal(broken.requests.length, 1, 'a server error is not retried with another key');
  t.equal(backup.requests[0]?.key, 'sk-secret-env-anthropic', 'the backup used its environment fallback key');
  t.match(h.events, [
    {
      type: 'provider_fallback',
      payload: { from: 'broken', to: 'backup', reason: 'server_error', status: 500, retry_at: null },
    },
  ]);
  t.match(h.registry.snapshot()['broken']!.keys[0], { cooling_until: null, failures: 0 });
});

t.test('when the whole chain fails the call ends with llm_unavailable', async (t) => {
  const a = await server(t, { wire: 'openai', script: [{ kind: 'status', status: 503 }] });
  const b = await server(t, { wire: 'anthropic', script: [{ kind: 'hang' }] });
  const h = harness(
    doc({
      a: { type: 'openai', model: 'g', base_url: a.baseUrl, api_keys: ['${KEY_A}'] },
      b: { type: 'anthropic', model: 'c', base_url: b.baseUrl, timeout_seconds: 1, api_keys: ['${KEY_B}'] },
      c: { type: 'anthropic', model: 'c', base_url: b.baseUrl, api_keys: ['${NOT_SET}'] },
    }),
  );
  const out = await drain(h.registry.call(['a', 'b', 'c', 'gone'], ask('q'), { seat: 'ada' }));
  t.type(out.error, LlmUnavailableError);
  const error = out.error as LlmUnavailableError;
  t.same(error.attempts, [
    { provider: 'a', reason: 'server_error', status: 503 },
    { provider: 'b', reason: 'timeout', status: null },
    { provider: 'c', reason: 'no_key', status: null, unresolved: ['NOT_SET'] },
    { provider: 'gone', reason: 'not_configured', status: null },
  ]);
  t.same(
    h.events.map((e) => [e.type, e.payload['from'], e.payload['to']]),
    [
      ['provider_fallback', 'a', 'b'],
      ['provider_fallback', 'b', 'c'],
      ['provider_fallback', 'c', 'gone'],
      ['llm_unavailable', undefined, undefined],
    ],
  );
  t.match(h.events[3], {
    type: 'llm_unavailable',
    failed: true,
    agent_id: 'ada',
    payload: { chain: ['a', 'b', 'c', 'gone'], attempts: error.attempts },
  });
  t.equal(error.retryAt, null, 'no failure was a cooldown: waiting would not help');
  t.equal(h.events[3]!.payload['retry_at'], null);
  const empty = await drain(h.registry.call([], ask('q')));
  t.match((empty.error as Error).message, /no LLM provider is configured/);
  t.equal((empty.error as LlmUnavailableError).retryAt, null);
});

t.test(
  'a chain that failed on cooling keys says when the earliest key is usable again, by the registry clock',
  async (t) => {
    const limited = await server(t, {
      wire: 'openai',
      script: [
        { kind: 'status', status: 429, headers: { 'retry-after': '45' } },
        { kind: 'status', status: 429, headers: { 'retry-after': '20' } },
      ],
    });
    const refused = await server(t, { wire: 'openai', script: [{ kind: 'status', status: 401 }] });
    const broken = await server(t, { wire: 'openai', script: () => ({ kind: 'status', status: 500 }) });
    const h = harness(
      doc(
        {
          limited: {
            type: 'openai',
            model: 'g',
            base_url: limited.baseUrl,
            api_keys: ['${KEY_A}', '${KEY_B}'],
          },
          refused: { type: 'openai', model: 'g', base_url: refused.baseUrl, api_keys: ['${KEY_C}'] },
          broken: { type: 'openai', model: 'g', base_url: broken.baseUrl, api_keys: ['${KEY_A}'] },
        },
        ['limited', 'refused', 'broken'],
      ),
      { timing: { authBackoffBaseMs: 60_000 } },
    );
    const start = h.now();
    const out = await drain(h.registry.call(['limited', 'refused', 'broken'], ask('q')));
    const error = out.error as LlmUnavailableError;
    t.same(
      error.attempts.map((a) => a.reason),
      ['keys_cooling', 'keys_cooling', 'server_error'],
    );
    t.equal(error.retryAt, new Date(start + 20_000).toISOString(), "the second key's 20 s Retry-After");
    t.match(h.events.at(-1), { type: 'llm_unavailable', payload: { retry_at: error.retryAt } });

    // Later, with the rate-limited keys cooling still, the call makes no request there.
    h.advance(10_000);
    const again = await drain(h.registry.call(['limited', 'refused'], ask('q')));
    t.equal((again.error as LlmUnavailableError).retryAt, new Date(start + 20_000).toISOString());
    t.equal(limited.requests.length, 2);
    // Past the Retry-After only the auth backoff (60 s from the 401) still cools.
    h.advance(15_000);
    const only = await drain(h.registry.call(['refused', 'broken'], ask('q')));
    t.equal((only.error as LlmUnavailableError).retryAt, new Date(start + 60_000).toISOString());
    t.notMatch(JSON.stringify(h.events) + h.lines.join('\n'), /sk-secret/);
  },
);

t.test('a failure after output has streamed ends the call without falling back', async (t) => {
  const a = await server(t, { wire: 'anthropic', script: [{ kind: 'error_event', text: 'half of it' }] });
  const b = await server(t, { wire: 'openai', script: [{ kind: 'text', text: 'never asked' }] });
  const h = harness(
    doc({
      a: { type: 'anthropic', model: 'c', base_url: a.baseUrl, api_keys: ['${KEY_A}'] },
      b: { type: 'openai', model: 'g', base_url: b.baseUrl, api_keys: ['${KEY_B}'] },
    }),
  );
  const out = await drain(h.registry.call(['a', 'b'], ask('q')));
  t.type(out.error, LlmServerError);
  t.ok(out.deltas.length > 0, 'the partial text was delivered');
  t.equal(b.requests.length, 0);
  t.same(h.events, []);
});

t.test(
  'a failure after output names every provider the chain tried, with its outcome, the failing one last',
  async (t) => {
    const a = await server(t, { wire: 'openai', script: [{ kind: 'status', status: 503 }] });
    const b = await server(t, { wire: 'anthropic', script: [{ kind: 'error_event', text: 'half of it' }] });
    const c = await server(t, { wire: 'openai', script: [{ kind: 'text', text: 'never asked' }] });
    const h = harness(
      doc({
        a: { type: 'openai', model: 'g', base_url: a.baseUrl, api_keys: ['${KEY_A}'] },
        gone: { type: 'openai', model: 'g', base_url: a.baseUrl, api_keys: ['${NOT_SET}'] },
        b: { type: 'anthropic', model: 'c', base_url: b.baseUrl, api_keys: ['${KEY_B}'] },
        c: { type: 'openai', model: 'g', base_url: c.baseUrl, api_keys: ['${KEY_C}'] },
      }),
    );
    const out = await drain(h.registry.call(['a', 'gone', 'b', 'c'], ask('q')));
    t.type(out.error, LlmServerError);
    const error = out.error as LlmServerError;
    t.same(error.attempts, [
      { provider: 'a', reason: 'server_error', status: 503 },
      { provider: 'gone', reason: 'no_key', status: null, unresolved: ['NOT_SET'] },
      { provider: 'b', reason: 'server_error', status: error.status },
    ]);
    t.equal(error.provider, 'b', "the error is the failing provider's own");
    t.equal(c.requests.length, 0, 'no fallback after output');
  },
);

t.test('an abort by the caller neither falls back nor records an event', async (t) => {
  const a = await server(t, { wire: 'openai', script: [{ kind: 'hang' }] });
  const b = await server(t, { wire: 'openai', script: [{ kind: 'text', text: 'never asked' }] });
  const h = harness(
    doc({
      a: { type: 'openai', model: 'g', base_url: a.baseUrl, api_keys: ['${KEY_A}'] },
      b: { type: 'openai', model: 'g', base_url: b.baseUrl, api_keys: ['${KEY_B}'] },
    }),
  );
  const controller = new AbortController();
  const stream = h.registry.call(['a', 'b'], ask('q', { signal: controller.signal }));
  await a.waitForRequests(1);
  controller.abort();
  const out = await drain(stream);
  t.match((out.error as Error).name, 'LlmAbortedError');
  t.equal(b.requests.length, 0);
  t.same(h.events, []);
  t.match(h.registry.snapshot()['a']!.keys[0], { in_flight: 0, cooling_until: null });
});

t.test('no error message, event or log line carries a key value or a response body', async (t) => {
  const leaky = await server(t, {
    wire: 'openai',
    script: [
      { kind: 'status', status: 401, body: '{"error":{"message":"bad key sk-secret-aaaa BODY-MARKER"}}' },
      { kind: 'status', status: 429, body: 'BODY-MARKER rate', headers: { 'retry-after': '5' } },
    ],
  });
  const broken = await server(t, {
    wire: 'anthropic',
    script: [
      { kind: 'raw', body: 'event: message_start\ndata: {not json BODY-MARKER sk-secret-bbbb\n\n' },
      { kind: 'status', status: 500 },
    ],
  });
  const h = harness(
    doc({
      leaky: {
        type: 'openai',
        model: 'g',
        base_url: leaky.baseUrl,
        api_keys: ['${KEY_A}', 'sk-secret-literal'],
      },
      broken: { type: 'anthropic', model: 'c', base_url: broken.baseUrl, api_keys: ['${KEY_B}'] },
    }),
  );
  const one = await drain(h.registry.call(['leaky', 'broken'], ask('q')));
  const two = await drain(h.registry.call(['broken'], ask('q')));
  t.ok(one.error && two.error, 'both calls failed');
  t.ok(h.lines.length >= 3, 'failures were logged');
  const everything = [
    String((one.error as Error).message),
    String((two.error as Error).message),
    JSON.stringify(h.events),
    JSON.stringify(h.registry.snapshot()),
    ...h.lines,
  ].join('\n');
  t.notMatch(everything, /sk-secret/);
  t.notMatch(everything, /BODY-MARKER|not json|refused key/);
  t.match(everything, /api_keys\[1\]/, 'the literal key is named by its position');
});

t.test(
  'an entry without api_keys uses its environment fallback key, and is passed over without one',
  async (t) => {
    const openai = await server(t, {
      wire: 'openai',
      acceptKeys: ['sk-secret-env-openai'],
      script: [{ kind: 'text', text: 'env key accepted' }],
    });
    const llm = { main: { type: 'openai', model: 'g', base_url: openai.baseUrl, api_keys: [] } };
    const h = harness(doc(llm));
    t.equal((await drain(h.registry.call(['main'], ask('q')))).result?.text, 'env key accepted');
    t.match(h.registry.snapshot()['main']!.keys, [{ ref: 'OPENAI_API_KEY', index: 0, cooling_until: null }]);

    const bare = harness(doc(llm), { resolve: () => undefined });
    const out = await drain(bare.registry.call(['main'], ask('q')));
    t.match((out.error as LlmUnavailableError).attempts, [
      { provider: 'main', reason: 'no_key', unresolved: ['OPENAI_API_KEY'] },
    ]);
    t.match(
      (out.error as LlmUnavailableError).message,
      'main: no_key (${OPENAI_API_KEY} resolves to nothing)',
      'the error names the variable to set',
    );
    t.match(bare.registry.snapshot()['main']!.keys, [{ ref: 'OPENAI_API_KEY', reason: 'unresolved' }]);
    t.equal(openai.requests.length, 1, 'nothing was sent without a key');
  },
);
