/** Document paths as problems and diffs print them: `roles[2].mcp_env.github.TOKEN`, `providers.llm["my.key"]`. */
import type { Segment } from './json.js';

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

export function formatPath(segments: ReadonlyArray<Segment>): string {
  let out = '';
  for (const segment of segments) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (IDENTIFIER.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

/** The inverse of formatPath; throws SyntaxError on text it did not produce. */
export function parsePath(text: string): Segment[] {
  const segments: Segment[] = [];
  let i = 0;
  const fail = (): never => {
    throw new SyntaxError(`not a document path: ${text}`);
  };
  while (i < text.length) {
    if (text[i] === '[') {
      if (text[i + 1] === '"') {
        let j = i + 2;
        while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
        if (text[j + 1] !== ']') fail();
        segments.push(JSON.parse(text.slice(i + 1, j + 1)) as string);
        i = j + 2;
      } else {
        const end = text.indexOf(']', i);
        const digits = text.slice(i + 1, end);
        if (end < 0 || !/^\d+$/.test(digits)) fail();
        segments.push(Number(digits));
        i = end + 1;
      }
      continue;
    }
    if (text[i] === '.') {
      if (segments.length === 0) fail();
      i += 1;
    } else if (segments.length > 0) fail();
    const match = /^[A-Za-z_$][A-Za-z0-9_$-]*/.exec(text.slice(i));
    if (!match) fail();
    segments.push((match as RegExpExecArray)[0]);
    i += (match as RegExpExecArray)[0].length;
  }
  return segments;
}
