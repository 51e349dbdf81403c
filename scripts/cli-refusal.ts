/**
 * How every `svc` client command words a node's refusal: status, error code, detail, each problem, the hint.
 * Its own module so the commands and their helpers (config-diff-cli.ts) share it without importing a command.
 */

/** ` (line 3)`, or ` (line 3, column 7)` for a problem that names its column (a JSON syntax error). */
const whereIn = (problem: Record<string, unknown>): string => {
  if (typeof problem['line'] !== 'number') return '';
  const column = typeof problem['column'] === 'number' ? `, column ${problem['column']}` : '';
  return ` (line ${problem['line']}${column})`;
};

/**
 * `svc config: 409 revision_advanced: detail` then one line per problem; a codeless answer is another
 * server's (a proxy, or an address that is not the node's). `command`: the noun of the `svc` command
 * speaking (config, secrets, fleet, work, pages), named first as in every other error the CLI prints.
 */
export function describeRefusal(status: number, text: string, command = 'config'): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = null;
  }
  if (parsed === null || typeof parsed !== 'object' || !('error' in parsed)) {
    return `svc ${command}: HTTP ${status} without an error code, so not the node's own answer: check that --url / $SVC_URL is the node's api.host:api.port, or the proxy in front of it (a write's outcome is unknown)\n`;
  }
  const answer = parsed as Record<string, unknown>;
  const str = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));
  const lines = [
    `svc ${command}: ${status} ${str(answer['error'])}${answer['detail'] ? `: ${str(answer['detail'])}` : ''}`,
  ];
  if (Array.isArray(answer['problems'])) {
    for (const problem of answer['problems'] as Array<Record<string, unknown>>) {
      lines.push(
        `  ${problem['path'] ? str(problem['path']) : '(document)'}${whereIn(problem)}: ${str(problem['message'])}`,
      );
    }
  }
  if (answer['stored_revision_id']) lines.push(`  stored inactive as ${str(answer['stored_revision_id'])}`);
  // A 401's hint speaks of HTTP headers; the CLI sends SVC_TOKEN (cli-http.ts says so already).
  if (answer['hint'] && status !== 401) lines.push(`hint: ${str(answer['hint'])}`);
  return `${lines.join('\n')}\n`;
}
