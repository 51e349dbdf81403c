/**
 * Anthropic messages (`POST {base}/v1/messages`, `x-api-key`, `anthropic-version`), streamed as the
 * events message_start, content_block_start/delta/stop, message_delta and message_stop. Tool calls
 * are `tool_use` blocks whose input arrives as `input_json_delta` fragments; results go back as
 * `tool_result` blocks in a user turn.
 */
import { z } from 'zod';
import {
  defaultMaxTokens,
  finishToolCall,
  StreamSeen,
  timedCall,
  tokens,
  type Answer,
  type ClientConfig,
  type ProviderClient,
  type ToolCallDraft,
} from './client.js';
import { joinUrl, JsonText, postJson, type CallContext } from './http.js';
import type { HttpAnswer } from './http-post.js';
import { LlmMalformedStreamError, LlmRateLimitedError, LlmServerError } from './llm.errors.js';
import { StopReason, type LlmDelta, type LlmRequest, type LlmResult } from './llm.types.js';
import { parseSse } from './sse.js';

const anthropicBase = 'https://api.anthropic.com';
export const anthropicVersion = '2023-06-01';

const UsageWire = z.object({
  input_tokens: z.number().nullish(),
  output_tokens: z.number().nullish(),
  cache_creation_input_tokens: z.number().nullish(),
  cache_read_input_tokens: z.number().nullish(),
});
type UsageWire = z.infer<typeof UsageWire>;

const Event = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('message_start'),
    message: z.object({ model: z.string().optional(), usage: UsageWire.optional() }),
  }),
  z.object({
    type: z.literal('content_block_start'),
    index: z.number().int(),
    content_block: z.object({ type: z.string(), id: z.string().optional(), name: z.string().optional() }),
  }),
  z.object({
    type: z.literal('content_block_delta'),
    index: z.number().int(),
    delta: z.object({ type: z.string(), text: z.string().optional(), partial_json: z.string().optional() }),
  }),
  z.object({ type: z.literal('content_block_stop'), index: z.number().int() }),
  z.object({
    type: z.literal('message_delta'),
    delta: z.object({ stop_reason: z.string().nullish() }),
    usage: UsageWire.optional(),
  }),
  z.object({ type: z.literal('message_stop') }),
  z.object({ type: z.literal('ping') }),
  z.object({ type: z.literal('error'), error: z.object({ type: z.string() }).optional() }),
]);

const stopReasons: Record<string, LlmResult['stop_reason']> = {
  end_turn: StopReason.EndTurn,
  tool_use: StopReason.ToolUse,
  max_tokens: StopReason.MaxTokens,
  stop_sequence: StopReason.StopSequence,
  refusal: StopReason.ContentFilter,
};

type Block = Record<string, unknown>;
const ephemeral = { type: 'ephemeral' } as const;

export function anthropicBody(config: ClientConfig, request: LlmRequest): Record<string, unknown> {
  const system: string[] = request.system ? [request.system] : [];
  const turns: { role: 'user' | 'assistant'; content: Block[] }[] = [];
  // Anthropic wants user and assistant turns to alternate: consecutive blocks of one role merge.
  const add = (role: 'user' | 'assistant', blocks: Block[]): void => {
    if (blocks.length === 0) return;
    const last = turns.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else turns.push({ role, content: blocks });
  };
  for (const m of request.messages) {
    if (m.role === 'system') system.push(m.content);
    else if (m.role === 'user') add('user', m.content === '' ? [] : [{ type: 'text', text: m.content }]);
    else if (m.role === 'tool') {
      add('user', [
        {
          type: 'tool_result',
          tool_use_id: m.tool_call_id,
          content: m.content,
          ...(m.is_error ? { is_error: true } : {}),
        },
      ]);
    } else {
      add('assistant', [
        ...(m.content === '' ? [] : [{ type: 'text', text: m.content }]),
        ...(m.tool_calls ?? []).map((c) => ({
          type: 'tool_use',
          id: c.id,
          name: c.name,
          input: c.arguments,
        })),
      ]);
    }
  }
  const tools = (request.tools ?? []).map((t, i, all) => ({
    name: t.name,
    description: t.description,
    input_schema: t.input_schema,
    // A cache breakpoint on the last tool caches every tool definition before it.
    ...(request.cache_prompt && i === all.length - 1 ? { cache_control: ephemeral } : {}),
  }));
  const systemText = system.join('\n\n');
  return {
    model: config.model,
    max_tokens: request.max_tokens ?? defaultMaxTokens,
    stream: true,
    ...(systemText === ''
      ? {}
      : {
          system: request.cache_prompt
            ? [{ type: 'text', text: systemText, cache_control: ephemeral }]
            : systemText,
        }),
    messages: turns,
    ...(tools.length > 0 ? { tools } : {}),
    ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
  };
}

export function anthropicClient(config: ClientConfig): ProviderClient {
  return {
    config,
    async call(request, apiKey, onDelta, baseUrl = config.baseUrl) {
      const base = baseUrl ?? anthropicBase;
      // A base URL written with its version (`.../v1`) is accepted as well as the bare host.
      const url = /\/v1\/?$/.test(base) ? joinUrl(base, 'messages') : joinUrl(base, 'v1/messages');
      const headers: Record<string, string> = {
        'anthropic-version': anthropicVersion,
        ...(apiKey ? { 'x-api-key': apiKey } : {}),
      };
      const body = new JsonText(JSON.stringify(anthropicBody(config, request)));
      const seen = new StreamSeen(body.text.length);
      return timedCall(config, request, seen, async (ctx, signal) => {
        const response = await postJson(ctx, signal, url, headers, body);
        return readStream(ctx, response, onDelta, seen);
      });
    },
  };
}

async function readStream(
  ctx: CallContext,
  response: HttpAnswer,
  onDelta: (delta: LlmDelta) => void,
  seen: StreamSeen,
): Promise<Answer> {
  let text = '';
  let stop: string | null = null;
  let stopped = false;
  const usage: UsageWire = {};
  // Block index -> tool call being assembled.
  const drafts = new Map<number, ToolCallDraft & { index: number }>();
  const calls: (ToolCallDraft & { index: number })[] = [];
  const mergeUsage = (u: UsageWire | undefined): void => {
    // Counts in message_delta are cumulative: the latest present value wins.
    for (const [k, v] of Object.entries(u ?? {})) if (typeof v === 'number') usage[k as keyof UsageWire] = v;
  };

  for await (const sse of parseSse(response.body)) {
    let json: unknown;
    try {
      json = JSON.parse(sse.data);
    } catch {
      throw new LlmMalformedStreamError(ctx.provider, 'an event is not JSON');
    }
    const parsed = Event.safeParse(json);
    if (!parsed.success) {
      // Event types added later by the provider are skipped; known ones must have their shape.
      const type = (json as { type?: unknown } | null)?.type;
      if (typeof type === 'string' && !Event.options.some((o) => o.shape.type.value === type)) continue;
      throw new LlmMalformedStreamError(ctx.provider, 'an event does not have its documented shape');
    }
    const event = parsed.data;
    seen.events += 1;
    switch (event.type) {
      case 'message_start':
        seen.model = event.message.model ?? '';
        mergeUsage(event.message.usage);
        // The prompt's count is final here; the output's (1 so far) only in message_delta.
        if (event.message.usage) {
          seen.input = promptTokens(usage);
          seen.cacheRead = tokens(usage.cache_read_input_tokens);
          seen.cacheWrite = tokens(usage.cache_creation_input_tokens);
        }
        break;
      case 'content_block_start':
        if (event.content_block.type === 'tool_use') {
          const { id, name } = event.content_block;
          if (!id || !name)
            throw new LlmMalformedStreamError(ctx.provider, 'a tool_use block has no id or name');
          const draft = { id, name, args: '', index: calls.length };
          drafts.set(event.index, draft);
          seen.outputChars += name.length;
          calls.push(draft);
          onDelta({ type: 'tool_call_start', index: draft.index, id, name });
        }
        break;
      case 'content_block_delta':
        if (event.delta.type === 'text_delta' && event.delta.text) {
          text += event.delta.text;
          seen.outputChars += event.delta.text.length;
          onDelta({ type: 'text', text: event.delta.text });
        } else if (event.delta.type === 'input_json_delta' && event.delta.partial_json) {
          const draft = drafts.get(event.index);
          if (!draft)
            throw new LlmMalformedStreamError(ctx.provider, 'input_json_delta outside a tool_use block');
          draft.args += event.delta.partial_json;
          seen.outputChars += event.delta.partial_json.length;
          onDelta({ type: 'tool_call_delta', index: draft.index, arguments: event.delta.partial_json });
        }
        break;
      case 'content_block_stop': {
        const draft = drafts.get(event.index);
        if (draft) onDelta({ type: 'tool_call_end', index: draft.index });
        break;
      }
      case 'message_delta':
        if (event.delta.stop_reason) stop = event.delta.stop_reason;
        mergeUsage(event.usage);
        if (event.usage?.output_tokens != null) seen.output = tokens(event.usage.output_tokens);
        break;
      case 'message_stop':
        stopped = true;
        break;
      case 'ping':
        break;
      case 'error':
        // An error mid-stream (overloaded, rate limited): its message is not quoted.
        if (event.error?.type === 'rate_limit_error') throw new LlmRateLimitedError(ctx.provider, null, null);
        throw new LlmServerError(
          ctx.provider,
          event.error?.type === 'overloaded_error' ? 529 : null,
          'error event in the stream',
        );
    }
    if (stopped) break;
  }
  if (!stopped) throw new LlmMalformedStreamError(ctx.provider, 'the stream ended before message_stop');
  const cacheWrite = tokens(usage.cache_creation_input_tokens);
  const cacheRead = tokens(usage.cache_read_input_tokens);
  return {
    text,
    tool_calls: calls.map(finishToolCall),
    stop_reason: stop ? (stopReasons[stop] ?? StopReason.Other) : StopReason.Other,
    raw_stop_reason: stop,
    usage: {
      input_tokens: promptTokens(usage),
      output_tokens: tokens(usage.output_tokens),
      cache_read_tokens: cacheRead,
      cache_write_tokens: cacheWrite,
    },
    model: seen.model,
  };
}

/** Anthropic counts cached prompt tokens apart from input_tokens; ours include them. */
const promptTokens = (usage: UsageWire): number =>
  tokens(usage.input_tokens) +
  tokens(usage.cache_creation_input_tokens) +
  tokens(usage.cache_read_input_tokens);
