/**
 * A tool server's stderr, logged a burst at a time: lines that arrive together (a stack trace, npm's
 * error block) become one record `{stderr, lines}` under the server's name, instead of one record per
 * line. A burst ends after a short quiet spell, when it grows past a bound, or when the stream ends.
 * Every line is scrubbed of secret values before it is kept.
 */
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { Logger } from 'pino';

export interface BurstSettings {
  /** Silence that ends a burst. */
  readonly quietMs: number;
  readonly maxLines: number;
  readonly maxLineChars: number;
}

export const defaultBursts: BurstSettings = { quietMs: 100, maxLines: 50, maxLineChars: 2_000 };

export class StderrBursts {
  private lines: string[] = [];
  private timer: NodeJS.Timeout | null = null;
  private last: string | null = null;

  constructor(
    private readonly log: Logger,
    private readonly scrub: (text: string) => string,
    private readonly settings: BurstSettings = defaultBursts,
  ) {}

  /** Reads `stream` line by line until it ends (the ending flushes). */
  follow(stream: Readable): void {
    const reader = createInterface({ input: stream });
    reader.on('line', (line) => this.add(line));
    reader.on('close', () => this.flush());
  }

  add(line: string): void {
    const kept = this.scrub(line).slice(0, this.settings.maxLineChars);
    this.lines.push(kept);
    if (kept.trim() !== '') this.last = kept.trim();
    if (this.lines.length >= this.settings.maxLines) {
      this.flush();
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.flush(), this.settings.quietMs);
    this.timer.unref();
  }

  /** Logs what is pending as one record; called before the server's exit is logged, so it reads first. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.lines.length === 0) return;
    const lines = this.lines;
    this.lines = [];
    this.log.info({ stderr: lines.join('\n'), lines: lines.length }, 'tool server stderr');
  }

  /** The last non-blank line written: usually why a server that exited did so. */
  lastLine(): string | null {
    return this.last;
  }

  /** Forgets the last line (a new process starts). */
  reset(): void {
    this.flush();
    this.last = null;
  }
}
