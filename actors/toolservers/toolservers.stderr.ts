/**
 * A tool server's stderr, logged a burst at a time: lines that arrive together (a stack trace, npm's
 * error block) become one record `{stderr, lines}` under the server's name, instead of one record per
 * line. A burst ends after a short quiet spell, when it grows past a bound, or when the stream ends.
 *
 * The stream is read as chunks, never through readline: a child writing megabytes without a newline
 * would otherwise grow one string until V8 refuses it and the whole node crashes. A line longer than
 * the bound is kept cut and the rest of it, up to its newline, is dropped as it arrives, so no more than
 * one bound's worth (plus a margin for a secret straddling the cut) is ever held per line. Secret values
 * are scrubbed over the whole burst text (a multi-line value spans lines) before anything is cut.
 */
import { StringDecoder } from 'node:string_decoder';
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
  /** The line being assembled (raw, never longer than `holdChars`). */
  private partial = '';
  /** The line being assembled was already cut: drop what follows until its newline. */
  private dropping = false;

  /**
   * @param margin how many characters past `maxLineChars` to hold before scrubbing, so a secret that
   *   straddles the cut is still recognised (the longest form a secret can take in text).
   */
  constructor(
    private readonly log: Logger,
    private readonly scrub: (text: string) => string,
    private readonly settings: BurstSettings = defaultBursts,
    private readonly margin: () => number = () => 0,
  ) {}

  private get holdChars(): number {
    return this.settings.maxLineChars + this.margin();
  }

  /** Reads `stream` a chunk at a time until it ends (the ending flushes, an unterminated last line too). */
  follow(stream: Readable): void {
    const decoder = new StringDecoder('utf8');
    stream.on('data', (chunk: Buffer | string) => {
      this.write(typeof chunk === 'string' ? chunk : decoder.write(chunk));
    });
    const end = (): void => {
      this.write(decoder.end());
      this.endLine();
      this.flush();
    };
    stream.once('end', end);
    stream.once('close', () => {
      if (this.partial !== '' || this.lines.length > 0) end();
    });
  }

  /** Feeds raw text: complete lines join the burst; the unterminated tail waits, bounded. */
  write(text: string): void {
    let from = 0;
    for (;;) {
      const newline = text.indexOf('\n', from);
      const piece = text.slice(from, newline === -1 ? text.length : newline);
      if (!this.dropping) {
        const room = this.holdChars - this.partial.length;
        this.partial += piece.slice(0, Math.max(0, room));
        if (piece.length > room) {
          // Over-long: keep it cut now (it may never end) and drop the rest of the line.
          this.add(this.partial);
          this.partial = '';
          this.dropping = true;
        }
      }
      if (newline === -1) return;
      if (this.dropping) this.dropping = false;
      else this.add(this.partial.replace(/\r$/, ''));
      this.partial = '';
      from = newline + 1;
    }
  }

  private endLine(): void {
    if (this.partial !== '') this.add(this.partial);
    this.partial = '';
    this.dropping = false;
  }

  /** Adds one line (raw; scrubbed with its burst when flushed). */
  add(line: string): void {
    this.lines.push(line.slice(0, this.holdChars));
    if (line.trim() !== '') this.last = line.slice(0, this.holdChars);
    if (this.lines.length >= this.settings.maxLines) {
      this.flush();
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.flush(), this.settings.quietMs);
    this.timer.unref();
  }

  private cut(text: string): string[] {
    return this.scrub(text)
      .split('\n')
      .map((line) => line.slice(0, this.settings.maxLineChars));
  }

  /** Logs what is pending as one record; called before the server's exit is logged, so it reads first. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.lines.length === 0) return;
    const lines = this.lines;
    this.lines = [];
    // Scrubbed as one text, so a value spanning several lines goes whole; a scrub never adds lines.
    const kept = this.cut(lines.join('\n'));
    this.log.info({ stderr: kept.join('\n'), lines: kept.length }, 'tool server stderr');
  }

  /** The last non-blank line written (scrubbed, cut): usually why a server that exited did so. */
  lastLine(): string | null {
    if (this.last === null) return null;
    const line = this.cut(this.last)
      .map((part) => part.trim())
      .filter((part) => part !== '');
    return line.at(-1) ?? null;
  }

  /** Forgets the last line and any unterminated one (a new process starts). */
  reset(): void {
    this.endLine();
    this.flush();
    this.last = null;
  }
}
