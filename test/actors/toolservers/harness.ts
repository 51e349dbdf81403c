/**
 * A pino logger whose lines the test can read and wait for (never a sleep), and a tool-server
 * manager on it with short backoffs, stopped at the end of the test.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino, type Logger } from 'pino';
import type { Test } from 'tap';
import { createToolServerManager, type ToolServerManager } from '../../../actors/index.js';
import type { Resolver } from '../../../schema/index.js';

export type LogLine = Record<string, unknown> & { msg: string };

export interface Captured {
  readonly logger: Logger;
  readonly lines: LogLine[];
  raw(): string;
  waitFor(match: (line: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
  /** Waits for the `count`-th line matching (1-based). */
  waitForNth(match: (line: LogLine) => boolean, count: number, timeoutMs?: number): Promise<LogLine>;
}

export function captureLogs(): Captured {
  const raw: string[] = [];
  const lines: LogLine[] = [];
  const waiters = new Set<() => void>();
  const logger = pino(
    { level: 'debug' },
    {
      write(text: string) {
        raw.push(text);
        lines.push(JSON.parse(text) as LogLine);
        for (const wake of [...waiters]) wake();
      },
    },
  );
  const waitForNth = (match: (line: LogLine) => boolean, count: number, timeoutMs = 60_000) =>
    new Promise<LogLine>((resolve, reject) => {
      const check = (): boolean => {
        const found = lines.filter(match);
        if (found.length < count) return false;
        waiters.delete(check);
        clearTimeout(timer);
        resolve(found[count - 1]!);
        return true;
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`no matching log line within ${timeoutMs} ms:\n${raw.join('')}`));
      }, timeoutMs);
      if (!check()) waiters.add(check);
    });
  return {
    logger,
    lines,
    raw: () => raw.join(''),
    waitFor: (match, timeoutMs) => waitForNth(match, 1, timeoutMs),
    waitForNth,
  };
}

export function tempDir(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-tools-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export function startManager(
  t: Test,
  opts: {
    resolve?: Resolver;
    logs?: Captured;
    backoffBaseMs?: number;
    backoffCapMs?: number;
    callTimeoutMs?: number;
    startTimeoutMs?: number;
  } = {},
): { manager: ToolServerManager; logs: Captured } {
  const logs = opts.logs ?? captureLogs();
  const manager = createToolServerManager({
    logger: logs.logger,
    resolve: opts.resolve ?? ((name) => process.env[name]),
    supervision: {
      backoffBaseMs: opts.backoffBaseMs ?? 100,
      backoffCapMs: opts.backoffCapMs ?? 400,
      startTimeoutMs: opts.startTimeoutMs ?? 15_000,
      callTimeoutMs: opts.callTimeoutMs ?? 15_000,
      healthCheckMs: 300,
    },
  });
  t.teardown(() => manager.stop());
  return { manager, logs };
}
