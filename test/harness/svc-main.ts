/** Runs the `svc` command line in process, capturing what it writes (logging silenced unless asked). */
import { main } from '../../scripts/svc.js';

function capture() {
  let text = '';
  return { write: (chunk: string) => (text += chunk), text: () => text };
}

export async function svc(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; out: string; err: string }> {
  const out = capture();
  const err = capture();
  const code = await main(args, { SVC_LOG_LEVEL: 'silent', ...env }, out, err);
  return { code, out: out.text(), err: err.text() };
}
