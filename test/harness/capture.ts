/** A CLI output stream for `main` run in process: the text written so far, and a wait until it holds some. */
export interface Captured {
  text(): string;
  write(s: string): boolean;
  /** Resolves once the captured text includes `what`. */
  until(what: string): Promise<void>;
}

export function capture(): Captured {
  let buf = '';
  const waiters: Array<() => void> = [];
  return {
    text: () => buf,
    write: (s: string) => {
      buf += s;
      for (const w of waiters.splice(0)) w();
      return true;
    },
    async until(what) {
      while (!buf.includes(what)) await new Promise<void>((resolve) => waiters.push(resolve));
    },
  };
}
