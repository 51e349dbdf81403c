/**
 * One line typed at a terminal with echo off (a secret's value): the terminal is put in raw mode, so this
 * reader does what the line discipline would have done — backspace, Ctrl-U, Enter — and Ctrl-C, which raw
 * mode no longer turns into SIGINT. The terminal is given back as it was found on every way out.
 */
import type { Out } from './cli-usage.js';

/** What the terminal gave: the line (without its Enter), or why there is none. */
export type HiddenLine =
  | { readonly ok: true; readonly value: string }
  | { readonly ok: false; readonly reason: 'interrupted' | 'closed' };

/** The part of a TTY stream the reader uses (process.stdin at a terminal). */
export interface TerminalInput {
  setRawMode(mode: boolean): unknown;
  setEncoding(encoding: BufferEncoding): unknown;
  on(event: 'data', listener: (chunk: string) => void): unknown;
  on(event: 'end', listener: () => void): unknown;
  off(event: 'data', listener: (chunk: string) => void): unknown;
  off(event: 'end', listener: () => void): unknown;
  resume(): unknown;
  pause(): unknown;
}

const ESC = '\x1b';

export function readHiddenLine(input: TerminalInput, prompt: string, err: Out): Promise<HiddenLine> {
  return new Promise((resolve) => {
    let value: string[] = [];
    // An escape sequence (an arrow key: ESC [ A) is a key, not text of the value: skipped to its final byte.
    let escape: 'none' | 'start' | 'params' = 'none';
    // Raw before the prompt: a key typed as soon as the prompt shows is never echoed.
    input.setRawMode(true);
    input.setEncoding('utf8');
    err.write(prompt);
    const finish = (result: HiddenLine): void => {
      input.off('data', onData);
      input.off('end', onEnd);
      input.setRawMode(false);
      input.pause();
      // Enter was not echoed either: end the prompt's line.
      err.write('\n');
      resolve(result);
    };
    const onData = (chunk: string): void => {
      for (const key of chunk) {
        if (escape === 'start') {
          escape = key === '[' || key === 'O' ? 'params' : 'none';
          continue;
        }
        if (escape === 'params') {
          if (key >= '@' && key <= '~') escape = 'none';
          continue;
        }
        if (key === '\r' || key === '\n' || key === '\x04')
          return finish({ ok: true, value: value.join('') });
        if (key === '\x03') return finish({ ok: false, reason: 'interrupted' });
        if (key === '\x7f' || key === '\b') value = value.slice(0, -1);
        else if (key === '\x15') value = [];
        else if (key === ESC) escape = 'start';
        // Other control keys (Tab, Ctrl-Z, ...) are not part of a typed value.
        else if (key >= ' ') value.push(key);
      }
    };
    const onEnd = (): void => finish({ ok: false, reason: 'closed' });
    input.on('data', onData);
    input.on('end', onEnd);
    input.resume();
  });
}
