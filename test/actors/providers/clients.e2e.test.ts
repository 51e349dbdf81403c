/**
 * Both wire clients against local servers speaking the real OpenAI and Anthropic streaming formats:
 * the same behaviour is asked of each.
 */
import t, { type Test } from 'tap';
import {
  LlmAbortedError,
  LlmAuthError,
  LlmMalformedStreamError,
  LlmNetworkError,
  LlmRateLimitedError,
  LlmRefusedError,
  LlmServerError,
  LlmTimeoutError,
} from '../../../actors/index.js';
import { startLlmServer, type Wire } from '../../fixtures/llm/llm-server.js';
import type { Step } from '../../fixtures/llm/script.js';
import { ask, callClient, clientFor, rejection, weatherTool } from './helpers.js';

const wires: Wire[] = ['openai', 'anthropic'];

async function serve(t: Test, wire: Wire, script: Step[]) {
  const server = await startLlmServer({ wire, script });
  t.teardown(() => server.close());
  return server;
}

for (const wire of wires) {
  t.test(`${wire}: a streamed text answer arrives as deltas and as the final text`, async (t) => {
    const server = await serve(t, wire, [{ kind: 'text', text: 'The answer is forty-two.', pieces: 4 }]);
    const { result, deltas } = await callClient(clientFor(server, wire), ask('question?'));
    t.equal(result.text, 'The answer is forty-two.');
    const texts = deltas.filter((d) => d.type === 'text');
    t.ok(texts.length >= 3, 'the text came in several deltas');
    t.equal(texts.map((d) => (d.type === 'text' ? d.text : '')).join(''), result.text);
    t.equal(result.stop_reason, 'end_turn');
    t.equal(result.tool_calls.length, 0);
    t.equal(result.model, 'model-x');
    t.equal(result.provider, 'fixture');
    t.ok(result.duration_ms >= 0);
    t.ok(!Number.isNaN(Date.parse(result.started_at)));
  });

  t.test(`${wire}: a tool call streamed in argument fragments is assembled and parsed`, async (t) => {
    const server = await serve(t, wire, [
      {
        kind: 'tool_calls',
        text: 'Let me look.',
        calls: [
          { id: 'call_a', name: 'get_weather', arguments: { city: 'Berlin', unit: 'c' }, fragments: 5 },
          { id: 'call_b', name: 'get_weather', arguments: { city: 'Oslo' }, fragments: 2 },
        ],
      },
    ]);
    const { result, deltas } = await callClient(
      clientFor(server, wire),
      ask('weather?', { tools: [weatherTool] }),
    );
    t.equal(result.stop_reason, 'tool_use');
    t.equal(result.text, 'Let me look.');
    t.same(
      result.tool_calls.map((c) => ({
        id: c.id,
        name: c.name,
        arguments: c.arguments,
        valid: c.arguments_valid,
      })),
      [
        { id: 'call_a', name: 'get_weather', arguments: { city: 'Berlin', unit: 'c' }, valid: true },
        { id: 'call_b', name: 'get_weather', arguments: { city: 'Oslo' }, valid: true },
      ],
    );
    const fragments = deltas.filter((d) => d.type === 'tool_call_delta' && d.index === 0);
    t.ok(fragments.length >= 4, 'the first call arrived in fragments');
    t.same(
      deltas.filter((d) => d.type !== 'text' && d.type !== 'tool_call_delta'),
      [
        ...(wire === 'openai'
          ? [
              { type: 'tool_call_start', index: 0, id: 'call_a', name: 'get_weather' },
              { type: 'tool_call_start', index: 1, id: 'call_b', name: 'get_weather' },
              { type: 'tool_call_end', index: 0 },
              { type: 'tool_call_end', index: 1 },
            ]
          : [
              { type: 'tool_call_start', index: 0, id: 'call_a', name: 'get_weather' },
              { type: 'tool_call_end', index: 0 },
              { type: 'tool_call_start', index: 1, id: 'call_b', name: 'get_weather' },
              { type: 'tool_call_end', index: 1 },
            ]),
      ],
      'every call starts before its fragments and ends after them',
    );
  });

  t.test(`${wire}: arguments that are not a JSON object are reported, not thrown`, async (t) => {
    const server = await serve(t, wire, [
      { kind: 'tool_calls', calls: [{ id: 'c1', name: 'get_weather', arguments: '{"city": "Ber' }] },
    ]);
    const { result } = await callClient(clientFor(server, wire), ask('weather?', { tools: [weatherTool] }));
    t.equal(result.tool_calls[0]?.arguments_valid, false);
    t.same(result.tool_calls[0]?.arguments, {});
    t.equal(result.tool_calls[0]?.raw_arguments, '{"city": "Ber');
  });

  t.test(`${wire}: a conversation with tool calls and tool results is accepted by the wire`, async (t) => {
    const server = await serve(t, wire, [{ kind: 'text', text: 'It is sunny.' }]);
    const { result } = await callClient(clientFor(server, wire), {
      system: 'Be brief.',
      tools: [weatherTool],
      max_tokens: 256,
      temperature: 0.2,
      messages: [
        { role: 'user', content: 'Weather in Berlin and Oslo?' },
        {
          role: 'assistant',
          content: 'Checking.',
          tool_calls: [
            { id: 'call_a', name: 'get_weather', arguments: { city: 'Berlin' } },
            { id: 'call_b', name: 'get_weather', arguments: { city: 'Oslo' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_a', content: '21 C, sunny' },
        { role: 'tool', tool_call_id: 'call_b', content: 'station offline', is_error: true },
        { role: 'user', content: 'Summarise.' },
      ],
    });
    t.equal(result.text, 'It is sunny.', 'the server found nothing to refuse');
    const body = server.requests[0]!.body!;
    t.equal(body['stream'], true);
    if (wire === 'openai') {
      t.same(body['stream_options'], { include_usage: true });
      t.equal(body['max_completion_tokens'], 256);
      t.equal(body['temperature'], 0.2);
      t.match(body['tools'], [
        { type: 'function', function: { name: 'get_weather', parameters: weatherTool.input_schema } },
      ]);
      t.match(body['messages'], [
        { role: 'system', content: 'Be brief.' },
        { role: 'user' },
        {
          role: 'assistant',
          tool_calls: [{ id: 'call_a', function: { arguments: '{"city":"Berlin"}' } }, { id: 'call_b' }],
        },
        { role: 'tool', tool_call_id: 'call_a' },
        { role: 'tool', tool_call_id: 'call_b' },
        { role: 'user', content: 'Summarise.' },
      ]);
    } else {
      t.equal(body['max_tokens'], 256);
      t.equal(body['system'], 'Be brief.');
      t.match(body['tools'], [{ name: 'get_weather', input_schema: weatherTool.input_schema }]);
      t.match(body['messages'], [
        { role: 'user' },
        {
          role: 'assistant',
          content: [
            { type: 'text' },
            { type: 'tool_use', id: 'call_a', input: { city: 'Berlin' } },
            { type: 'tool_use' },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'call_a', content: '21 C, sunny' },
            { type: 'tool_result', tool_use_id: 'call_b', is_error: true },
            { type: 'text', text: 'Summarise.' },
          ],
        },
      ]);
      t.equal(server.requests[0]!.headers['anthropic-version'], '2023-06-01');
    }
  });

  t.test(`${wire}: usage is counted, cache reads and writes included`, async (t) => {
    const usage =
      wire === 'openai'
        ? { prompt_tokens: 1200, completion_tokens: 80, cached_tokens: 1024 }
        : {
            input_tokens: 150,
            output_tokens: 80,
            cache_read_input_tokens: 1024,
            cache_creation_input_tokens: 26,
          };
    const server = await serve(t, wire, [{ kind: 'text', text: 'ok', usage }]);
    const { result } = await callClient(
      clientFor(server, wire),
      ask('q', { cache_prompt: true, tools: [weatherTool] }),
    );
    t.same(result.usage, {
      input_tokens: 1200,
      output_tokens: 80,
      cache_read_tokens: 1024,
      cache_write_tokens: wire === 'openai' ? 0 : 26,
    });
    if (wire === 'anthropic') {
      const body = server.requests[0]!.body!;
      t.match(
        body['system'],
        [{ type: 'text', cache_control: { type: 'ephemeral' } }],
        'the system prompt is a cache breakpoint',
      );
      t.match(body['tools'], [{ cache_control: { type: 'ephemeral' } }], 'so is the last tool');
    }
  });

  t.test(`${wire}: the key is sent the way the wire expects`, async (t) => {
    const server = await serve(t, wire, [{ kind: 'text', text: 'ok' }]);
    await callClient(clientFor(server, wire), ask('q'), 'sk-the-key');
    const headers = server.requests[0]!.headers;
    if (wire === 'openai') t.equal(headers['authorization'], 'Bearer sk-the-key');
    else t.equal(headers['x-api-key'], 'sk-the-key');
  });

  t.test(`${wire}: a call with no complete answer by timeout_seconds fails as a timeout`, async (t) => {
    const server = await serve(t, wire, [{ kind: 'hang', text: 'partial' }]);
    const error = await rejection(callClient(clientFor(server, wire, 300), ask('q')));
    t.type(error, LlmTimeoutError);
    t.match(error.message, /"fixture".*no complete answer within the timeout/);
  });

  t.test(`${wire}: HTTP refusals map to typed errors without quoting the body`, async (t) => {
    const server = await serve(t, wire, [
      { kind: 'status', status: 429, headers: { 'retry-after': '7' } },
      { kind: 'status', status: 401 },
      { kind: 'status', status: 403 },
      { kind: 'status', status: 500 },
      { kind: 'status', status: 400 },
    ]);
    const client = clientFor(server, wire);
    const limited = await rejection(callClient(client, ask('q'), 'sk-secret-429'));
    t.type(limited, LlmRateLimitedError);
    t.equal((limited as LlmRateLimitedError).retryAfterMs, 7000);
    t.match(limited.message, /"fixture" \(\w[\w-]*\): rate limited \(HTTP 429\)/);
    const auth = await rejection(callClient(client, ask('q'), 'sk-secret-401'));
    t.type(auth, LlmAuthError);
    t.match(auth.message, /credential refused \(HTTP 401\)/);
    t.type(await rejection(callClient(client, ask('q'), 'sk-secret-403')), LlmAuthError);
    const server500 = await rejection(callClient(client, ask('q'), 'sk-secret-500'));
    t.type(server500, LlmServerError);
    t.equal((server500 as LlmServerError).status, 500);
    t.type(await rejection(callClient(client, ask('q'), 'sk-secret-400')), LlmRefusedError);
    for (const e of [limited, auth, server500]) {
      t.notMatch(
        e.message,
        /sk-secret|refused key|Incorrect API key|Rate limit reached|error while processing/,
      );
    }
  });

  t.test(`${wire}: a stream that is not the wire's format fails as malformed`, async (t) => {
    const server = await serve(t, wire, [
      { kind: 'raw', body: 'data: {"choices": [ this is not json sk-leaked-body\n\n' },
      { kind: 'truncate', text: 'half an answ' },
      // Well-formed events, a clean end of the body, but the answer never finished.
      {
        kind: 'raw',
        body:
          wire === 'openai'
            ? 'data: {"model":"m","choices":[{"index":0,"delta":{"content":"half"},"finish_reason":null}]}\n\n'
            : 'event: message_start\ndata: {"type":"message_start","message":{"model":"m","usage":{"input_tokens":3}}}\n\n',
      },
    ]);
    const client = clientFor(server, wire);
    const bad = await rejection(callClient(client, ask('q')));
    t.type(bad, LlmMalformedStreamError);
    t.notMatch(bad.message, /sk-leaked-body|this is not json/);
    t.notOk(bad.cause, 'the parser error (which quotes its input) is not kept');
    const cut = await rejection(callClient(client, ask('q')));
    t.ok(cut instanceof LlmMalformedStreamError || cut instanceof LlmNetworkError, `truncation: ${cut.name}`);
    const unfinished = await rejection(callClient(client, ask('q')));
    t.type(unfinished, LlmMalformedStreamError);
    t.match(unfinished.message, /ended before/);
  });

  t.test(`${wire}: an error event in the stream fails as a server error`, async (t) => {
    const server = await serve(t, wire, [{ kind: 'error_event', text: 'so far' }]);
    const error = await rejection(callClient(clientFor(server, wire), ask('q')));
    t.type(error, LlmServerError);
    t.notMatch(error.message, /secret detail/);
  });

  t.test(`${wire}: the caller's abort ends the call as aborted`, async (t) => {
    const server = await serve(t, wire, [{ kind: 'hang', text: 'partial' }]);
    const controller = new AbortController();
    const pending = callClient(clientFor(server, wire), ask('q', { signal: controller.signal }));
    await server.waitForRequests(1);
    controller.abort();
    t.type(await rejection(pending), LlmAbortedError);
  });
}

t.test('openai: a refused connection fails as a network error naming its code', async (t) => {
  const server = await startLlmServer({ wire: 'openai', script: [] });
  await server.close();
  const error = await rejection(callClient(clientFor(server, 'openai'), ask('q')));
  t.type(error, LlmNetworkError);
  t.match(error.message, /ECONNREFUSED/);
});

t.test(
  'openai-compatible: chat completions at base_url, max_tokens, and no credential when keyless',
  async (t) => {
    const server = await serve(t, 'openai', [{ kind: 'text', text: 'local answer' }]);
    const { result } = await callClient(
      clientFor(server, 'openai-compatible'),
      ask('q', { max_tokens: 99 }),
      null,
    );
    t.equal(result.text, 'local answer');
    const request = server.requests[0]!;
    t.equal(request.path, '/v1/chat/completions');
    t.equal(request.key, null);
    t.equal(request.body!['max_tokens'], 99);
    t.notOk('max_completion_tokens' in request.body!);
  },
);

t.test(
  'openai-compatible: a server that ignores stream:true and answers one JSON completion is read',
  async (t) => {
    const completion = {
      id: 'x',
      object: 'chat.completion',
      model: 'local-model',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'c9', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
            ],
          },
          finish_reason: 'tool_calls',
        },
      ],
      usage: { prompt_tokens: 30, completion_tokens: 9 },
    };
    const server = await serve(t, 'openai', [
      { kind: 'raw', contentType: 'application/json', body: JSON.stringify(completion) },
    ]);
    const { result, deltas } = await callClient(clientFor(server, 'openai-compatible'), ask('q'), null);
    t.equal(result.model, 'local-model');
    t.equal(result.stop_reason, 'tool_use');
    t.same(result.tool_calls[0]?.arguments, { city: 'Rome' });
    t.same(result.usage, { input_tokens: 30, output_tokens: 9, cache_read_tokens: 0, cache_write_tokens: 0 });
    t.equal(deltas.filter((d) => d.type === 'tool_call_start').length, 1);
  },
);

t.test('openai-compatible: tool-call fragments without an index are assembled in order', async (t) => {
  const chunk = (delta: unknown, finish: string | null = null) =>
    `data: ${JSON.stringify({ model: 'local', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const body = [
    chunk({
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":' } }],
    }),
    chunk({ tool_calls: [{ function: { arguments: '"Rome"}' } }] }),
    chunk({
      tool_calls: [{ id: 'c2', type: 'function', function: { name: 'get_weather', arguments: '{}' } }],
    }),
    chunk({}, 'tool_calls'),
    'data: [DONE]\n\n',
  ].join('');
  const server = await serve(t, 'openai', [{ kind: 'raw', body }]);
  const { result } = await callClient(clientFor(server, 'openai-compatible'), ask('q'), null);
  t.same(
    result.tool_calls.map((c) => [c.id, c.arguments]),
    [
      ['c1', { city: 'Rome' }],
      ['c2', {}],
    ],
  );
});
