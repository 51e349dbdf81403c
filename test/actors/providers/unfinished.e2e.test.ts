/**
 * Calls a provider began to answer and did not finish, against local servers speaking the real wires: the
 * tokens the wire let us know (reported, else estimated and flagged) reach the caller, and a reset on a
 * kept-alive connection is retried once on a fresh one instead of falling back (ops/providers.md "Usage",
 * "Chains and fallback").
 */
import t from 'tap';
import { LlmServerError, type UnfinishedCall } from '../../../actors/index.js';
import { nodePost } from '../../../actors/seat/providers/http-post.js';
import { ask, drain } from './helpers.js';
import { doc, harness, server } from './registry-harness.js';

const streamed = 'half an answer'; // 14 characters: 4 tokens at 4 characters a token

t.test(
  'openai: a stream cut after some text reports its usage as an estimate: the prompt sent and the text streamed',
  async (t) => {
    const a = await server(t, { wire: 'openai', script: [{ kind: 'truncate', text: streamed }] });
    const h = harness(
      doc({ a: { type: 'openai', model: 'g', base_url: a.baseUrl, api_keys: ['${KEY_A}'] } }),
    );
    const seen: UnfinishedCall[] = [];
    const out = await drain(h.registry.call(['a'], ask('q'), { onUnfinished: (u) => seen.push(u) }));
    t.ok(out.error, 'the call fails');
    t.equal(seen.length, 1);
    const body = JSON.stringify(a.requests[0]?.body);
    t.match(seen[0], {
      provider: 'a',
      model: 'g',
      usage_estimated: true,
      usage: { output_tokens: 4, cache_read_tokens: 0, cache_write_tokens: 0 },
    });
    // The request's characters at four a token (the body as sent, give or take its whitespace).
    t.ok(Math.abs(seen[0]!.usage.input_tokens - Math.ceil(body.length / 4)) <= 2, 'input estimated');
  },
);

t.test(
  'anthropic: a stream cut after message_start counts the input the provider reported and estimates the output',
  async (t) => {
    const a = await server(t, { wire: 'anthropic', script: [{ kind: 'truncate', text: streamed }] });
    const h = harness(
      doc({ a: { type: 'anthropic', model: 'c', base_url: a.baseUrl, api_keys: ['${KEY_A}'] } }),
    );
    const seen: UnfinishedCall[] = [];
    await drain(h.registry.call(['a'], ask('q'), { onUnfinished: (u) => seen.push(u) }));
    t.same(seen, [
      {
        provider: 'a',
        model: 'c',
        usage: { input_tokens: 12, output_tokens: 4, cache_read_tokens: 0, cache_write_tokens: 0 },
        usage_estimated: true,
      },
    ]);
  },
);

t.test(
  'an error event after output ends the call with the error, reporting the unfinished call once, without fallback',
  async (t) => {
    const a = await server(t, { wire: 'anthropic', script: [{ kind: 'error_event', text: streamed }] });
    const b = await server(t, { wire: 'openai', script: [{ kind: 'text', text: 'never asked' }] });
    const h = harness(
      doc({
        a: { type: 'anthropic', model: 'c', base_url: a.baseUrl, api_keys: ['${KEY_A}'] },
        b: { type: 'openai', model: 'g', base_url: b.baseUrl, api_keys: ['${KEY_B}'] },
      }),
    );
    const seen: UnfinishedCall[] = [];
    const out = await drain(h.registry.call(['a', 'b'], ask('q'), { onUnfinished: (u) => seen.push(u) }));
    t.type(out.error, LlmServerError);
    t.match(seen, [{ provider: 'a', usage: { input_tokens: 12, output_tokens: 4 }, usage_estimated: true }]);
    t.equal(b.requests.length, 0);
  },
);

t.test(
  'a provider that failed before its answer began reports nothing unfinished; one that began and fell back does',
  async (t) => {
    const refused = await server(t, { wire: 'openai', script: [{ kind: 'status', status: 500 }] });
    // An error event before any output: nothing reached the caller, so the chain falls back.
    const broken = await server(t, { wire: 'anthropic', script: [{ kind: 'error_event' }] });
    const good = await server(t, { wire: 'openai', script: [{ kind: 'text', text: 'fine' }] });
    const h = harness(
      doc({
        refused: { type: 'openai', model: 'g', base_url: refused.baseUrl, api_keys: ['${KEY_A}'] },
        broken: { type: 'anthropic', model: 'c', base_url: broken.baseUrl, api_keys: ['${KEY_B}'] },
        good: { type: 'openai', model: 'g', base_url: good.baseUrl, api_keys: ['${KEY_C}'] },
      }),
    );
    const seen: UnfinishedCall[] = [];
    const out = await drain(
      h.registry.call(['refused', 'broken', 'good'], ask('q'), { onUnfinished: (u) => seen.push(u) }),
    );
    t.equal(out.result?.text, 'fine');
    t.notOk(out.result?.usage_estimated, 'a finished answer with its usage frame is not an estimate');
    t.match(seen, [{ provider: 'broken', usage: { input_tokens: 12, output_tokens: 0 } }]);
    t.equal(seen.length, 1);
  },
);

t.test(
  'openai: an answer whose finish arrived but whose stream was cut before the usage frame is kept, its usage estimated',
  async (t) => {
    const chunk = (delta: unknown, finish: string | null): string =>
      `data: ${JSON.stringify({ model: 'g-1', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    const a = await server(t, {
      wire: 'openai',
      script: [
        { kind: 'raw', body: chunk({ content: 'all of it' }, null) + chunk({}, 'stop') },
        // A server that finishes with [DONE] and never counts: its zeros are what it says.
        { kind: 'raw', body: chunk({ content: 'all of it' }, null) + chunk({}, 'stop') + 'data: [DONE]\n\n' },
      ],
    });
    const h = harness(
      doc({ a: { type: 'openai-compatible', model: 'g', base_url: a.baseUrl, api_keys: ['${KEY_A}'] } }),
    );
    const cut = await drain(h.registry.call(['a'], ask('q')));
    t.equal(cut.result?.text, 'all of it');
    t.equal(cut.result?.usage_estimated, true);
    t.equal(cut.result?.usage.output_tokens, 3);
    t.ok((cut.result?.usage.input_tokens ?? 0) > 0);
    const whole = await drain(h.registry.call(['a'], ask('q')));
    t.notOk(whole.result?.usage_estimated);
    t.same(whole.result?.usage, {
      input_tokens: 0,
      output_tokens: 0,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
    });
  },
);

t.test(
  'a reset on a kept-alive connection before any answer byte is retried once on a fresh connection to the same provider',
  async (t) => {
    const a = await server(t, {
      wire: 'openai',
      script: [
        { kind: 'text', text: 'first' },
        { kind: 'reset' },
        { kind: 'text', text: 'second' },
        { kind: 'text', text: 'primed again' },
        { kind: 'reset' },
        { kind: 'reset' },
      ],
    });
    const b = await server(t, { wire: 'openai', script: [{ kind: 'text', text: 'from b' }] });
    const h = harness(
      doc({
        a: { type: 'openai', model: 'g', base_url: a.baseUrl, api_keys: ['${KEY_A}'] },
        b: { type: 'openai', model: 'g', base_url: b.baseUrl, api_keys: ['${KEY_B}'] },
      }),
    );
    // A connection to `a` left idle in the pool: an earlier answer read to its end.
    const prime = async (): Promise<void> => {
      const answer = await nodePost(`${a.baseUrl}/chat/completions`, {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'g', messages: [{ role: 'user', content: 'x' }], stream: true }),
        signal: new AbortController().signal,
      });
      await answer.text();
    };
    await prime();
    const out = await drain(h.registry.call(['a', 'b'], ask('q')));
    t.equal(out.result?.text, 'second', 'answered by the same provider');
    t.equal(a.requests.length, 3, 'the reset request and its one retry');
    t.equal(b.requests.length, 0);
    t.same(h.events, [], 'no provider_fallback');

    // The retry is bounded: a reset on the fresh connection too is a network failure, and the chain falls back.
    await prime();
    const reset = a.requests.length;
    const again = await drain(h.registry.call(['a', 'b'], ask('q')));
    t.equal(a.requests.length - reset, 2, 'one request and one retry');
    t.equal(again.result?.text, 'from b');
    t.match(h.events, [{ type: 'provider_fallback', payload: { from: 'a', reason: 'network' } }]);
  },
);
