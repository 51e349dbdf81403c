/**
 * One supervised tool-server instance: connects through the MCP SDK (a stdio child or a remote
 * streamable-HTTP server), lists its tools, answers calls, and after any failure (a crash, a failed
 * start, a broken remote) reconnects after an exponential, capped backoff. Its stderr is logged a
 * burst at a time with every secret value scrubbed, and a stdio child's exit code or signal, with the
 * last thing it wrote, is logged when it closes.
 */
import type { ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import { ToolServerState, type ToolResult, type ToolServerStatus } from '../../schema/index.js';
import {
  cancelledResult,
  cancelReason,
  errorResult,
  errorText,
  oneLine,
  toToolResult,
} from './toolservers.result.js';
import {
  backoffDelay,
  checkStdioLaunch,
  remoteUrl,
  scrub,
  type ResolvedInstance,
} from './toolservers.resolve.js';
import { usableTools } from './toolservers.names.js';
import { LazyOutputSchemas } from './toolservers.outputs.js';
import { cappedFetch, remoteMessageLimit } from './toolservers.remote-cap.js';
import { defaultBursts, StderrBursts } from './toolservers.stderr.js';
import { StdoutNoise } from './toolservers.startup.js';
import type { SupervisionSettings } from './toolservers.supervision.js';
import { exitText, isAlive, isTransportFailure, oversizeText, type Exit } from './toolservers.exit.js';

export class ToolServerInstance {
  private resolved: ResolvedInstance;
  private client: Client | null = null;
  private transport: Transport | null = null;
  private served: Tool[] = [];
  /** The served tools offered under the current prefix, kept until either changes (status reads it twice). */
  private usable: {
    readonly prefix: string;
    readonly served: Tool[];
    readonly kept: readonly Tool[];
  } | null = null;
  private state: ToolServerState = ToolServerState.Stopped;
  private stopped = false;
  private attempt = 0;
  private pid: number | null = null;
  private startedAt: number | null = null;
  private consecutive = 0;
  private restarts = 0;
  private firstFailure: { at: string; error: string } | null = null;
  private lastFailure: { at: string; error: string } | null = null;
  private nextRestartAt: number | null = null;
  private timer: NodeJS.Timeout | null = null;
  private health: NodeJS.Timeout | null = null;
  private exit: Exit | null = null;
  /** Why the SDK closed the connection of `attempt` itself (a message too large), when it did. */
  private refused: { readonly attempt: number; readonly message: string } | null = null;
  /** What a remote answered when `attempt`'s transport broke (an HTTP error): the SDK then closes. */
  private broke: { readonly attempt: number; readonly error: unknown } | null = null;
  private readonly log: Logger;
  private readonly stderr: StderrBursts;
  private readonly noise = new StdoutNoise();

  constructor(
    resolved: ResolvedInstance,
    private readonly settings: SupervisionSettings,
    logger: Logger,
    private readonly onToolsChanged: () => void,
  ) {
    this.resolved = resolved;
    this.log = logger.child({ server: resolved.spec.server, seat: resolved.spec.seat });
    this.stderr = new StderrBursts(
      this.log,
      (text) => this.scrub(text),
      defaultBursts,
      () => this.resolved.secrets[0]?.length ?? 0,
    );
  }

  get spec(): ResolvedInstance['spec'] {
    return this.resolved.spec;
  }

  get fingerprint(): string {
    return this.resolved.fingerprint;
  }

  /** A new spec with the same fingerprint (for example a changed `tool_prefix`): no restart. */
  respec(resolved: ResolvedInstance): void {
    this.resolved = resolved;
  }

  tools(): readonly Tool[] {
    if (this.state !== ToolServerState.Started) return [];
    const { prefix } = this.spec;
    if (this.usable?.prefix !== prefix || this.usable.served !== this.served)
      this.usable = { prefix, served: this.served, kept: usableTools(prefix, this.served).kept };
    return this.usable.kept;
  }

  /** Keeps the served list, saying which tools cannot be offered under their full names. */
  private serve(tools: Tool[]): void {
    this.served = tools;
    const { left } = usableTools(this.spec.prefix, tools);
    if (left.length > 0) this.log.warn({ tools: left }, 'tools left out: names not usable as function names');
  }

  /** The tool of this name the server served before it failed, while it waits to restart or is restarting. */
  servedBeforeFailure(name: string): Tool | undefined {
    const between = this.state === ToolServerState.Backoff || this.state === ToolServerState.Starting;
    return between ? this.served.find((tool) => tool.name === name) : undefined;
  }

  /** The first attempt; resolves once it connected or failed (a failure schedules the restart). */
  start(): Promise<void> {
    return this.connect();
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const attempt = ++this.attempt;
    this.state = ToolServerState.Starting;
    this.nextRestartAt = null;
    let transport: Transport;
    try {
      transport = this.makeTransport(attempt);
    } catch (error) {
      // A url resolving to no URL (an unset `${VAR}`): a failure of this server like any other, never of
      // the apply; it is retried with backoff, so setting the variable and reloading brings it up.
      this.failed(attempt, error);
      return;
    }
    const client = new Client(
      { name: 'svc', version: '1' },
      {
        capabilities: {},
        jsonSchemaValidator: new LazyOutputSchemas(),
        listChanged: {
          tools: {
            onChanged: (error, tools) => {
              if (attempt !== this.attempt) return;
              if (error) this.log.warn({ error: this.scrub(errorText(error)) }, 'tool list refresh failed');
              else if (tools) {
                this.serve(tools);
                this.onToolsChanged();
              }
            },
          },
        },
      },
    );
    // A failed start closes the client before connect() rejects: the close says what the remote answered.
    client.onclose = () =>
      this.failed(
        attempt,
        this.broke?.attempt === attempt
          ? this.broke.error
          : new Error('the tool server closed the connection'),
      );
    client.onerror = (error) => {
      if (isTransportFailure(error)) this.broke = { attempt, error };
      const oversize = oversizeText(error);
      if (oversize !== null && attempt === this.attempt) this.refused = { attempt, message: oversize };
      else if (oversize === null && !this.noise.note(attempt, error))
        this.log.debug({ error: this.scrub(errorText(error)) }, 'tool server transport error');
    };
    this.transport = transport;
    this.client = client;
    const deadline = AbortSignal.timeout(this.settings.startTimeoutMs);
    try {
      await client.connect(transport, { timeout: this.settings.startTimeoutMs, signal: deadline });
      if (transport instanceof StdioClientTransport) this.pid = transport.pid;
      const tools: Tool[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor === undefined ? {} : { cursor }, {
          timeout: this.settings.startTimeoutMs,
          signal: deadline,
        });
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      if (attempt !== this.attempt || this.stopped) return;
      this.serve(tools);
      this.state = ToolServerState.Started;
      this.startedAt = Date.now();
      this.log.info(
        { tools_served: tools.length, pid: this.pid, restarts: this.restarts },
        'tool server started',
      );
      if (this.resolved.launch.kind === 'http') this.watchHealth(client, attempt);
      this.onToolsChanged();
    } catch (error) {
      const said = this.noise.startFailure(attempt, error, this.settings.startTimeoutMs);
      this.failed(attempt, said === null ? error : new Error(said));
    }
  }

  /** A stdio child's exit is seen at once; a remote's outage only when asked, so ask now and then. */
  private watchHealth(client: Client, attempt: number): void {
    this.health = setInterval(() => {
      client.ping({ timeout: this.settings.startTimeoutMs }).catch((error: unknown) => {
        if (
          isTransportFailure(error) ||
          (error instanceof McpError && error.code === (ErrorCode.RequestTimeout as number))
        )
          this.failed(attempt, error);
      });
    }, this.settings.healthCheckMs);
    this.health.unref();
  }

  private makeTransport(attempt: number): Transport {
    const { launch } = this.resolved;
    if (launch.kind === 'http') {
      const url = remoteUrl(launch);
      return new StreamableHTTPClientTransport(url, {
        requestInit: { headers: { ...launch.headers } },
        // An answer is read up to the stdio limit and then cut (the call answers a tool error naming it).
        fetch: cappedFetch(remoteMessageLimit, this.spec.server, (what) =>
          this.log.warn({ ...what }, 'tool server answer over the limit; cut'),
        ),
      });
    }
    checkStdioLaunch(launch);
    const transport = new StdioClientTransport({
      command: launch.command,
      args: [...launch.args],
      env: { ...launch.env },
      stderr: 'pipe',
    });
    // With `stderr: 'pipe'` the SDK hands back a PassThrough at once, before the child exists.
    const stderr = transport.stderr as Readable | null;
    this.stderr.reset();
    if (stderr) this.stderr.follow(stderr);
    // The SDK spawns inside start() and keeps the ChildProcess to itself; its exit code is only there.
    const start = transport.start.bind(transport);
    transport.start = () => {
      const started = start();
      const child = (transport as unknown as { _process?: ChildProcess })._process;
      child?.once('exit', (code, signal) => {
        this.exit = { attempt, code, signal };
      });
      return started;
    };
    return transport;
  }

  private scrub(text: string): string {
    return scrub(text, this.resolved.secrets);
  }

  /** Counts one failure of `attempt` (later reports of the same attempt are ignored) and schedules the restart. */
  private failed(attempt: number, error: unknown): void {
    if (attempt !== this.attempt || this.stopped || this.state === ToolServerState.Backoff) return;
    // A child's exit is seen before its pipes close, so by now its code (or signal) is known.
    const exit = this.exit?.attempt === attempt ? this.exit : null;
    // A refusal by the SDK explains the exit that followed it (the child exits 0 once its stdin closes).
    const refused = this.refused?.attempt === attempt ? this.refused.message : null;
    const message = refused ?? (exit ? exitText(exit) : oneLine(this.scrub(errorText(error))));
    const cause = exit ? this.stderr.lastLine() : null;
    this.stderr.flush();
    const at = new Date().toISOString();
    const ranStably = this.startedAt !== null && Date.now() - this.startedAt >= this.settings.stableMs;
    this.consecutive = ranStably ? 1 : this.consecutive + 1;
    this.firstFailure ??= { at, error: message };
    this.lastFailure = { at, error: message };
    this.state = ToolServerState.Backoff;
    this.startedAt = null;
    if (this.health) clearInterval(this.health);
    this.health = null;
    // `served` is kept (tools() hides it) so a call to one of its tools can say when the server restarts.
    const closing = this.client;
    const pid = this.pid;
    this.client = null;
    this.transport = null;
    this.pid = null;
    void this.close(closing, pid);
    const delay = backoffDelay(this.consecutive, this.settings.backoffBaseMs, this.settings.backoffCapMs);
    this.nextRestartAt = Date.now() + delay;
    this.log.warn(
      {
        error: message,
        ...(exit ? { exit_code: exit.code, signal: exit.signal } : {}),
        ...(cause !== null ? { cause } : {}),
        consecutive_failures: this.consecutive,
        restart_in_ms: delay,
      },
      'tool server failed; restarting after backoff',
    );
    this.onToolsChanged();
    this.timer = setTimeout(() => {
      this.timer = null;
      this.restarts += 1;
      void this.connect();
    }, delay);
  }

  /**
   * One `tools/call`. When `signal` fires first the call is abandoned at once: the SDK sends the server
   * `notifications/cancelled` (the request id and the signal's reason) and drops a late answer.
   */
  async call(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<ToolResult> {
    const client = this.client;
    const attempt = this.attempt;
    if (signal?.aborted) return cancelledResult(`${name} on ${this.spec.server}`, signal);
    if (client === null || this.state !== ToolServerState.Started) {
      const when =
        this.nextRestartAt === null
          ? ''
          : ` (restarts at ${new Date(this.nextRestartAt).toISOString()}, in ${Math.max(0, this.nextRestartAt - Date.now())} ms)`;
      return errorResult(`tool server ${this.spec.server} is not running${when}; try again later`);
    }
    // A signal of its own per call: the SDK never removes its listener, and a turn's signal outlives many
    // calls (a later cut would otherwise send notifications/cancelled for every call that already answered).
    const own = new AbortController();
    const cancel = (): void => own.abort(cancelReason(signal as AbortSignal));
    signal?.addEventListener('abort', cancel, { once: true });
    const noiseBefore = this.noise.seen(attempt);
    try {
      const result = await client.callTool({ name, arguments: args }, undefined, {
        timeout: this.settings.callTimeoutMs,
        signal: own.signal,
      });
      return toToolResult(result);
    } catch (error) {
      if (signal?.aborted) {
        this.log.info({ tool: name, reason: cancelReason(signal) }, 'tool call cancelled');
        return cancelledResult(`${name} on ${this.spec.server}`, signal);
      }
      const refused = this.refused?.attempt === attempt ? this.refused.message : null;
      const timedOut = error instanceof McpError && error.code === (ErrorCode.RequestTimeout as number);
      const message =
        refused ??
        (timedOut
          ? this.noise.callTimeout(attempt, noiseBefore, this.settings.callTimeoutMs)
          : oneLine(this.scrub(errorText(error))));
      // A stdio crash is seen by the close handler; a JSON-RPC error or a bad result is an answer.
      // Only an unreachable remote counts as a failure of the server here.
      if (isTransportFailure(error)) this.failed(attempt, error);
      return errorResult(`tool ${name} on ${this.spec.server} failed: ${message}`);
    } finally {
      signal?.removeEventListener('abort', cancel);
    }
  }

  status(): ToolServerStatus {
    const { spec, launch } = this.resolved;
    const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());
    return {
      server: spec.server,
      seat: spec.seat,
      shared: spec.shared,
      transport: launch.kind,
      state: this.state,
      started: this.state === ToolServerState.Started,
      failed: this.state === ToolServerState.Backoff,
      tools_served: this.tools().length,
      tools: this.tools().map((tool) => `${spec.prefix}${tool.name}`),
      started_at: iso(this.startedAt),
      first_failure: this.firstFailure,
      last_failure: this.lastFailure,
      restarts: this.restarts,
      next_restart_at: this.state === ToolServerState.Backoff ? iso(this.nextRestartAt) : null,
      pid: this.pid ?? (this.transport instanceof StdioClientTransport ? this.transport.pid : null),
    };
  }

  /** Stops for good: no restart; the child is gone (by pid) when this resolves. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.health) clearInterval(this.health);
    this.timer = null;
    this.health = null;
    const client = this.client;
    const transport = this.transport;
    const pid = this.pid ?? (transport instanceof StdioClientTransport ? transport.pid : null);
    this.client = null;
    this.transport = null;
    this.served = [];
    this.state = ToolServerState.Stopped;
    this.startedAt = null;
    await this.close(client, pid);
    this.pid = null;
    this.stderr.flush();
    const exit = this.exit?.attempt === this.attempt ? this.exit : null;
    this.log.info(exit ? { exit_code: exit.code, signal: exit.signal } : {}, 'tool server stopped');
  }

  /** Closes the client (the SDK ends stdin, then SIGTERM, then SIGKILL) and makes sure the pid is gone. */
  private async close(client: Client | null, pid: number | null): Promise<void> {
    if (client) {
      client.onclose = undefined;
      await client.close().catch(() => undefined);
    }
    if (pid !== null && isAlive(pid)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
}
