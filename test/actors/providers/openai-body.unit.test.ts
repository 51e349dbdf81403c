import t from 'tap';
import type { ClientConfig } from '../../../actors/seat/providers/client.js';
import type { LlmMessage, LlmTool } from '../../../actors/seat/providers/llm.types.js';
import { openaiBody } from '../../../actors/seat/providers/openai.client.js';

const compatible: ClientConfig = { name: 'local', type: 'openai-compatible', model: 'm-1', timeoutMs: 1000 };
const openai: ClientConfig = { ...compatible, type: 'openai', model: 'gpt-x "quoted"' };

const lookup: LlmTool = {
  name: 'org_lookup',
  description: 'Look up a colleague',
  input_schema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
};

/** The chat completions wire form, written out: what the body must read as. */
function expected(config: ClientConfig, system: string, messages: unknown[], extra: Record<string, unknown>) {
  return JSON.stringify({
    model: config.model,
    messages: [{ role: 'system', content: system }, ...messages],
    stream: true,
    stream_options: { include_usage: true },
    ...extra,
  });
}

t.test('the body is the chat completions JSON of every message, round after round', async (t) => {
  const messages: LlmMessage[] = [{ role: 'user', content: 'Find "ada"\nplease' }];
  const wire: unknown[] = [{ role: 'user', content: 'Find "ada"\nplease' }];
  for (let round = 0; round < 3; round++) {
    const body = openaiBody(compatible, { system: 'Be brief.', messages: [...messages], tools: [lookup] });
    t.equal(
      body.text,
      expected(compatible, 'Be brief.', wire, {
        max_tokens: 4096,
        tools: [
          {
            type: 'function',
            function: { name: lookup.name, description: lookup.description, parameters: lookup.input_schema },
          },
        ],
      }),
      `round ${round}`,
    );
    messages.push(
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ id: `c${round}`, name: 'org_lookup', arguments: { query: `q${round}` } }],
      },
      { role: 'tool', tool_call_id: `c${round}`, content: `found ${round}`, is_error: false },
    );
    wire.push(
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: `c${round}`,
            type: 'function',
            function: { name: 'org_lookup', arguments: `{"query":"q${round}"}` },
          },
        ],
      },
      { role: 'tool', tool_call_id: `c${round}`, content: `found ${round}` },
    );
  }
});

t.test(
  'an answer with text keeps it; no tools, a temperature and OpenAI token naming are kept too',
  async (t) => {
    const messages: LlmMessage[] = [
      { role: 'system', content: 'Also this.' },
      { role: 'assistant', content: 'Done.' },
      { role: 'assistant', content: 'Looking.', tool_calls: [{ id: 'a', name: 'n', arguments: {} }] },
    ];
    const body = openaiBody(openai, { system: 'S', messages, max_tokens: 64, temperature: 0.2 });
    t.equal(
      body.text,
      expected(
        openai,
        'S',
        [
          { role: 'system', content: 'Also this.' },
          { role: 'assistant', content: 'Done.' },
          {
            role: 'assistant',
            content: 'Looking.',
            tool_calls: [{ id: 'a', type: 'function', function: { name: 'n', arguments: '{}' } }],
          },
        ],
        { max_completion_tokens: 64, temperature: 0.2 },
      ),
    );
  },
);
