/**
 * The readable log form (`SVC_LOG_FORMAT=pretty`, the default at a terminal), applied to each pino
 * line just before it is written: ISO time, level, component, message, then `key=value` pairs; text
 * that spans lines (a tool server's stderr, a stack) follows, indented. No colour: the same form
 * reads well piped into a file or a pager.
 */

const levelNames: Readonly<Record<number, string>> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};

/** Keys the head of the line shows, or that only repeat what every line says. */
const shown = new Set(['level', 'time', 'msg', 'component', 'node']);

const plain = /^[A-Za-z0-9_.:/@+-]+$/;

function inline(value: unknown): string {
  if (typeof value === 'string') return plain.test(value) ? value : JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  return JSON.stringify(value);
}

const indent = (text: string): string =>
  text
    .replace(/\n+$/, '')
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');

/** One JSON log line (with its newline) as the readable form; a line that is not JSON passes unchanged. */
export function prettyLine(line: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  if (record === null || typeof record !== 'object') return line;
  const time = typeof record['time'] === 'number' ? new Date(record['time']).toISOString() : '';
  const level = typeof record['level'] === 'number' ? (levelNames[record['level']] ?? 'LOG') : 'LOG';
  const component = typeof record['component'] === 'string' ? ` [${record['component']}]` : '';
  const pairs: string[] = [];
  const blocks: string[] = [];
  for (const [key, value] of Object.entries(record)) {
    if (shown.has(key)) continue;
    if (key === 'err' && value !== null && typeof value === 'object') {
      const err = value as { message?: unknown; stack?: unknown };
      pairs.push(`err=${inline(err.message ?? '')}`);
      if (typeof err.stack === 'string') blocks.push(indent(err.stack));
    } else if (typeof value === 'string' && value.includes('\n')) {
      pairs.push(`${key}:`);
      blocks.push(indent(value));
    } else pairs.push(`${key}=${inline(value)}`);
  }
  const head = [
    `${time} ${level.padEnd(5)}${component} ${typeof record['msg'] === 'string' ? record['msg'] : inline(record['msg'] ?? '')}`,
    ...pairs,
  ].join('  ');
  return `${[head, ...blocks].join('\n')}\n`;
}
