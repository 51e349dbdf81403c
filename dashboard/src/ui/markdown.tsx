/**
 * A small, safe subset of Markdown for page bodies, descriptions and comments: headings, bullet and
 * numbered lists, fenced code, quotes, paragraphs, inline code and strong text. Everything becomes text nodes through
 * Preact; no HTML in the source is ever parsed, so a body cannot inject markup or script. Links, other
 * emphasis and tables are shown as their source text.
 */
import type { ComponentChildren } from 'preact';

type Block =
  | { kind: 'heading'; level: number; text: string }
  | { kind: 'list'; ordered: boolean; items: string[] }
  | { kind: 'code'; text: string }
  | { kind: 'quote'; text: string }
  | { kind: 'paragraph'; text: string };

const BULLET = /^\s*[-*+]\s+(.*)$/;
const NUMBERED = /^\s*\d+[.)]\s+(.*)$/;
const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;

function blocks(source: string): Block[] {
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  const out: Block[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.trim() === '') {
      i += 1;
    } else if (line.trimStart().startsWith('```')) {
      const body: string[] = [];
      i += 1;
      while (i < lines.length && !lines[i]!.trimStart().startsWith('```')) body.push(lines[i++]!);
      i += 1;
      out.push({ kind: 'code', text: body.join('\n') });
    } else if (HEADING.test(line)) {
      const m = HEADING.exec(line)!;
      out.push({ kind: 'heading', level: m[1]!.length, text: m[2]! });
      i += 1;
    } else if (BULLET.test(line) || NUMBERED.test(line)) {
      const ordered = !BULLET.test(line);
      const pattern = ordered ? NUMBERED : BULLET;
      const items: string[] = [];
      while (i < lines.length && pattern.test(lines[i]!)) items.push(pattern.exec(lines[i++]!)![1]!);
      out.push({ kind: 'list', ordered, items });
    } else if (line.trimStart().startsWith('>')) {
      const body: string[] = [];
      while (i < lines.length && lines[i]!.trimStart().startsWith('>'))
        body.push(lines[i++]!.trimStart().replace(/^>\s?/, ''));
      out.push({ kind: 'quote', text: body.join('\n') });
    } else {
      const body: string[] = [];
      while (
        i < lines.length &&
        lines[i]!.trim() !== '' &&
        !HEADING.test(lines[i]!) &&
        !BULLET.test(lines[i]!) &&
        !NUMBERED.test(lines[i]!) &&
        !lines[i]!.trimStart().startsWith('>') &&
        !lines[i]!.trimStart().startsWith('```')
      )
        body.push(lines[i++]!);
      out.push({ kind: 'paragraph', text: body.join('\n') });
    }
  }
  return out;
}

/** Inline code spans as `<code>`, `**strong**` as `<strong>`; everything else stays text. */
function inline(text: string): ComponentChildren {
  return text.split(/(`[^`\n]+`|\*\*[^*\n]+\*\*)/).map((part, n) => {
    if (part.length > 2 && part.startsWith('`') && part.endsWith('`'))
      return <code key={n}>{part.slice(1, -1)}</code>;
    if (part.length > 4 && part.startsWith('**') && part.endsWith('**'))
      return <strong key={n}>{part.slice(2, -2)}</strong>;
    return part;
  });
}

export function Markdown(props: { text: string }) {
  return (
    <div class="markdown">
      {blocks(props.text).map((b, n) => {
        switch (b.kind) {
          case 'heading':
            // Inside a card (h2): page headings start at h3.
            return b.level <= 1 ? <h3 key={n}>{inline(b.text)}</h3> : <h4 key={n}>{inline(b.text)}</h4>;
          case 'list': {
            const items = b.items.map((item, k) => <li key={k}>{inline(item)}</li>);
            return b.ordered ? <ol key={n}>{items}</ol> : <ul key={n}>{items}</ul>;
          }
          case 'code':
            return <pre key={n}>{b.text}</pre>;
          case 'quote':
            return <blockquote key={n}>{inline(b.text)}</blockquote>;
          default:
            return <p key={n}>{inline(b.text)}</p>;
        }
      })}
    </div>
  );
}
