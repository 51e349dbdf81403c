/**
 * OpenAI chat completions (`POST {base}/chat/completions`), also spoken by `openai-compatible`
 * servers at their `base_url`: streamed with `stream_options.include_usage`, tool calls as
 * `tool_calls` whose `function.arguments` arrive in fragments.
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
import { LlmMalformedStreamError, LlmServerError } from './llm.errors.js';
import {
  StopReason,
  type LlmDelta,
  type LlmMessage,
  type LlmRequest,
  type LlmResult,
  type LlmTool,
} from './llm.types.js';
import { parseSse } from './sse.js';

const openaiBase = 'https://api.openai.com/v1';

const ToolCallFragment = z.object({
  /** Some compatible servers omit it: a fragment with an id then starts a call, one without continues the last. */
  index: z.number().int().min(0).optional(),
  id: z.string().optional(),
  function: z.object({ name: z.string().optional(), arguments: z.string().optional() }).optional(),
});

const Usage = z.object({
  prompt_tokens: z.number().optional(),
  completion_tokens: z.number().optional(),
  prompt_tokens_details: z.object({ cached_tokens: z.number().nullish() }).nullish(),
});

const Chunk = z.object({
  model: z.string().optional(),
  choices: z
    .array(
      z.object({
        delta: z
          .object({
            content: z.string().nullish(),
            tool_calls: z.array(ToolCallFragment).nullish(),
          })
          .nullish(),
        finish_reason: z.string().nullish(),
      }),
    )
    .optional(),
  usage: Usage.nullish(),
  error: z.unknown().optional(),
});

/** A server that ignores `stream: true` answers one completion object; it is accepted as well. */
const Completion = z.object({
  model: z.string().optional(),
  choices: z
    .array(
      z.object({
        message: z.object({
          content: z.string().nullish(),
          tool_calls: z
            .array(
              z.object({ id: z.string(), function: z.object({ name: z.string(), arguments: z.string() }) }),
            )
            .nullish(),
        }),
        finish_reason: z.string().nullish(),
      }),
    )
    .min(1),
  usage: Usage.nullish(),
});

const stopReasons: Record<string, LlmResult['stop_reason']> = {
  stop: StopReason.EndTurn,
  tool_calls: StopReason.ToolUse,
  function_call: StopReason.ToolUse,
  length: StopReason.MaxTokens,
  content_filter: StopReason.ContentFilter,
};

/** One message as the chat completions wire has it. */
function wireMessage(m: LlmMessage): Record<string, unknown> {
  if (m.role === 'assistant') {
    const calls = m.tool_calls ?? [];
    return {
      role: 'assistant',
      content: m.content === '' && calls.length > 0 ? null : m.content,
      ...(calls.length > 0
        ? {
            tool_calls: calls.map((c) => ({
              id: c.id,
              type: 'function',
              function: { name: c.name, arguments: JSON.stringify(c.arguments) },
            })),
          }
        : {}),
    };
  }
  if (m.role === 'tool') return { role: 'tool', tool_call_id: m.tool_call_id, content: m.content };
  return { role: m.role, content: m.content };
}

/**
 * Wire JSON kept per message and per tool (both immutable): a phase sends every earlier message and its
 * tools again each round, so only the newest messages are serialized; the rest are joined as they were.
 */
const messageTexts = new WeakMap<LlmMessage, string>();
const toolTexts = new WeakMap<LlmTool, string>();

function cachedJson<K extends object>(cache: WeakMap<K, string>, key: K, wire: (key: K) => unknown): string {
  let text = cache.get(key);
  if (text === undefined) {
    text = JSON.stringify(wire(key));
    cache.set(key, text);
  }
  return text;
}

const wireTool = (t: LlmTool): Record<string, unknown> => ({
  type: 'function',
  function: { name: t.name, description: t.description, parameters: t.input_schema },
});

/** The request body as JSON text: the same text as `JSON.stringify` of the wire object, in its key order. */
export function openaiBody(config: ClientConfig, request: LlmRequest): JsonText {
  const messages: string[] = [];
  if (request.system) messages.push(JSON.stringify({ role: 'system', content: request.system }));
  for (const m of request.messages) messages.push(cachedJson(messageTexts, m, wireMessage));
  const maxTokens = request.max_tokens ?? defaultMaxTokens;
  // `messages` follows `model`; the rest is serialized as one object whose opening brace is dropped.
  const rest = JSON.stringify({
    stream: true,
    stream_options: { include_usage: true },
    // OpenAI's newer models accept only max_completion_tokens; compatible servers know max_tokens.
    ...(config.type === 'openai' ? { max_completion_tokens: maxTokens } : { max_tokens: maxTokens }),
    ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
  });
  const tools =
    request.tools && request.tools.length > 0
      ? `,"tools":[${request.tools.map((t) => cachedJson(toolTexts, t, wireTool)).join(',')}]`
      : '';
  return new JsonText(
    `{"model":${JSON.stringify(config.model)},"messages":[${messages.join(',')}],${rest.slice(1, -1)}${tools}}`,
  );
}

export function openaiClient(config: ClientConfig): ProviderClient {
  return {
    config,
    async call(request, apiKey, onDelta, baseUrl = config.baseUrl) {
      const url = joinUrl(baseUrl ?? openaiBase, 'chat/completions');
      const headers: Record<string, string> = apiKey ? { authorization: `Bearer ${apiKey}` } : {};
      const body = openaiBody(config, request);
      const seen = new StreamSeen(body.text.length);
      return timedCall(config, request, seen, async (ctx, signal) => {
        const response = await postJson(ctx, signal, url, headers, body);
        if ((response.header('content-type') ?? '').includes('application/json')) {
          return readCompletion(ctx, await response.text(), onDelta);
        }
        return readStream(ctx, response, onDelta, seen);
      });
    },
  };
}

function usageOf(usage: z.infer<typeof Usage> | null | undefined): LlmResult['usage'] {
  return {
    input_tokens: tokens(usage?.prompt_tokens),
    output_tokens: tokens(usage?.completion_tokens),
    cache_read_tokens: tokens(usage?.prompt_tokens_details?.cached_tokens),
    // The chat completions wire does not report cache writes.
    cache_write_tokens: 0,
  };
}

async function readStream(
  ctx: CallContext,
  response: HttpAnswer,
  onDelta: (delta: LlmDelta) => void,
  seen: StreamSeen,
): Promise<Answer> {
  let text = '';
  let finish: string | null = null;
  let usage: z.infer<typeof Usage> | null = null;
  let done = false;
  // Wire index -> our index, in order of appearance.
  const drafts = new Map<number, ToolCallDraft & { index: number }>();
  let lastKey = 0;

  for await (const event of parseSse(response.body)) {
    if (event.data.trim() === '[DONE]') {
      done = true;
      break;
    }
    let json: unknown;
    try {
      json = JSON.parse(event.data);
    } catch {
      throw new LlmMalformedStreamError(ctx.provider, 'an event is not JSON');
    }
    const parsed = Chunk.safeParse(json);
    if (!parsed.success)
      throw new LlmMalformedStreamError(ctx.provider, 'an event does not have the chunk shape');
    const chunk = parsed.data;
    seen.events += 1;
    if (chunk.error !== undefined) throw new LlmServerError(ctx.provider, null, 'error event in the stream');
    if (chunk.model) seen.model = chunk.model;
    if (chunk.usage) {
      usage = chunk.usage;
      const counted = usageOf(usage);
      seen.input = counted.input_tokens;
      seen.output = counted.output_tokens;
      seen.cacheRead = counted.cache_read_tokens;
    }
    const choice = chunk.choices?.[0];
    if (!choice) continue;
    if (choice.delta?.content) {
      text += choice.delta.content;
      seen.outputChars += choice.delta.content.length;
      onDelta({ type: 'text', text: choice.delta.content });
    }
    for (const fragment of choice.delta?.tool_calls ?? []) {
      const key = fragment.index ?? (fragment.id ? -1 - drafts.size : lastKey);
      lastKey = key;
      let draft = drafts.get(key);
      if (!draft) {
        if (!fragment.id || !fragment.function?.name) {
          throw new LlmMalformedStreamError(ctx.provider, 'a tool call starts without its id or name');
        }
        draft = { id: fragment.id, name: fragment.function.name, args: '', index: drafts.size };
        drafts.set(key, draft);
        seen.outputChars += draft.name.length;
        onDelta({ type: 'tool_call_start', index: draft.index, id: draft.id, name: draft.name });
      }
      const piece = fragment.function?.arguments;
      if (piece) {
        draft.args += piece;
        seen.outputChars += piece.length;
        onDelta({ type: 'tool_call_delta', index: draft.index, arguments: piece });
      }
    }
    if (choice.finish_reason) finish = choice.finish_reason;
  }
  if (finish === null) {
    throw new LlmMalformedStreamError(
      ctx.provider,
      done ? 'the stream finished without a finish reason' : 'the stream ended before the answer finished',
    );
  }
  const calls = [...drafts.values()].sort((a, b) => a.index - b.index);
  for (const draft of calls) onDelta({ type: 'tool_call_end', index: draft.index });
  // Cut after the finish, before the usage frame (which follows it) and [DONE]: the answer stands, its
  // usage is estimated. A stream that ends with [DONE] and no usage is a server that does not count.
  const cut = usage === null && !done;
  return {
    text,
    tool_calls: calls.map(finishToolCall),
    stop_reason: stopReasons[finish] ?? StopReason.Other,
    raw_stop_reason: finish,
    usage: cut ? seen.usage().usage : usageOf(usage),
    ...(cut ? { usage_estimated: true } : {}),
    model: seen.model,
  };
}

function readCompletion(ctx: CallContext, body: string, onDelta: (delta: LlmDelta) => void): Answer {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw new LlmMalformedStreamError(ctx.provider, 'the response is not JSON');
  }
  const parsed = Completion.safeParse(json);
  if (!parsed.success)
    throw new LlmMalformedStreamError(ctx.provider, 'the response does not have the completion shape');
  const choice = parsed.data.choices[0]!;
  const text = choice.message.content ?? '';
  if (text) onDelta({ type: 'text', text });
  const calls = (choice.message.tool_calls ?? []).map((c, index) => {
    onDelta({ type: 'tool_call_start', index, id: c.id, name: c.function.name });
    if (c.function.arguments) onDelta({ type: 'tool_call_delta', index, arguments: c.function.arguments });
    onDelta({ type: 'tool_call_end', index });
    return finishToolCall({ id: c.id, name: c.function.name, args: c.function.arguments });
  });
  const finish = choice.finish_reason ?? null;
  return {
    text,
    tool_calls: calls,
    stop_reason: finish ? (stopReasons[finish] ?? StopReason.Other) : StopReason.EndTurn,
    raw_stop_reason: finish,
    usage: usageOf(parsed.data.usage),
    model: parsed.data.model ?? '',
  };
}
