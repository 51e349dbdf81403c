/**
 * A zero-latency OpenAI chat-completions server for the seats benchmark: answers every
 * `POST /v1/chat/completions` at once, streamed (SSE in one write, as a real server's frames), from a
 * script read off the request itself, so any number of seats share it without state:
 *   plan    → `{"decision":"plan", ..., "tools":["org_lookup"]}`
 *   execute → one `org_lookup` call (the node's builtin) per round until the request holds `rounds` tool results
 *             (`rounds=<n>` in the trigger's summary; 0 when absent), then a short account
 *   review  → `{"verdict":"done"}`
 * It also keeps the raw request bodies when asked (`record`), so the benchmark can replay the exact
 * bytes with plain HTTP calls as the baseline.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ZeroLlm {
  /** What a provider entry's `base_url` says. */
  readonly baseUrl: string;
  /** `POST` target of the baseline's raw calls. */
  readonly url: string;
  /** Requests answered so far. */
  count(): number;
  /** Keep the raw bodies of the requests from now on (until `stopRecording`). */
  record(): void;
  stopRecording(): string[];
  close(): Promise<void>;
}

interface Body {
  readonly model?: string;
  readonly messages?: ReadonlyArray<{ role?: string; content?: unknown }>;
}

const frame = (data: unknown): string => `data: ${JSON.stringify(data)}\n\n`;
const plan =
  '{"decision":"plan","steps":["look up"],"success_criteria":["looked up"],"tools":["org_lookup"]}';
const verdict = '{"verdict":"done","notes":"criteria met"}';

/** The SSE answer: the opening delta, the content or the tool call, the finish, the usage, [DONE]. */
function answer(body: Body): string {
  const messages = body.messages ?? [];
  const system = typeof messages[0]?.content === 'string' ? messages[0].content : '';
  const user = messages.find((m) => m.role === 'user');
  const wanted = Number(/rounds=(\d+)/.exec(typeof user?.content === 'string' ? user.content : '')?.[1] ?? 0);
  const base = {
    id: 'chatcmpl-bench',
    object: 'chat.completion.chunk',
    created: 1_763_800_000,
    model: body.model,
  };
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): string =>
    frame({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] });
  const out = [chunk({ role: 'assistant', content: '' })];
  let finish = 'stop';
  if (system.includes('Phase: PLAN')) out.push(chunk({ content: plan }));
  else if (system.includes('Phase: REVIEW')) out.push(chunk({ content: verdict }));
  else {
    const done = messages.filter((m) => m.role === 'tool').length;
    if (done < wanted) {
      finish = 'tool_calls';
      out.push(
        chunk({
          tool_calls: [
            {
              index: 0,
              id: `call_${done}`,
              type: 'function',
              function: { name: 'org_lookup', arguments: '{"query":"s0000"}' },
            },
          ],
        }),
      );
    } else out.push(chunk({ content: `I echoed ${done} times.` }));
  }
  out.push(chunk({}, finish));
  out.push(
    frame({ ...base, choices: [], usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 } }),
  );
  out.push('data: [DONE]\n\n');
  return out.join('');
}

export async function startZeroLlm(): Promise<ZeroLlm> {
  let answered = 0;
  let recorded: string[] | null = null;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
        return;
      }
      recorded?.push(raw);
      answered += 1;
      res
        .writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' })
        .end(answer(JSON.parse(raw) as Body));
    });
  });
  // Many seats call at once: keep-alive sockets are reused by the client's pool.
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    baseUrl: `${url}/v1`,
    url: `${url}/v1/chat/completions`,
    count: () => answered,
    record: () => {
      recorded = [];
    },
    stopRecording: () => {
      const out = recorded ?? [];
      recorded = null;
      return out;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
