import t from 'tap';
import { isSecretName } from '../../schema/index.js';
import { UsageError } from '../../scripts/cli-usage.js';
import { isSecretNameText, runSecrets } from '../../scripts/secrets-cli.js';

t.test('the CLI judges secret names exactly as the schema does', async (t) => {
  const names = [
    'A',
    '_',
    'a1',
    'OPENAI_API_KEY',
    '_LEADING',
    '9BAD',
    '',
    'has-dash',
    'has space',
    'dot.ted',
    'ünicode',
    'X'.repeat(128),
    'X'.repeat(129),
    'A\n',
    '$VAR',
  ];
  for (const name of names)
    t.equal(isSecretNameText(name), isSecretName(name), JSON.stringify(name.slice(0, 20)));
});

t.test(
  'svc secrets put never echoes an argument that may be a value typed on the command line',
  async (t) => {
    const out = { write: () => true };
    // Port 1 answers nothing; every refusal below comes before a request.
    const env = { SVC_URL: 'http://127.0.0.1:1', SVC_TOKEN: 't' };
    const cases: Array<[string, string[]]> = [
      ['an unquoted value after FILE', ['put', 'API_KEY', '-', 'sk-LEAK', 'ed-value']],
      ['the value where NAME goes', ['put', 'sk-LEAKED-value']],
    ];
    for (const [what, args] of cases) {
      const refused = await runSecrets(args, env, out, out, () => Buffer.alloc(0)).then(
        () => null,
        (error: unknown) => error,
      );
      t.type(refused, UsageError, what);
      t.notMatch((refused as Error).message, /LEAK/, `${what}: not echoed`);
    }
    const names = await runSecrets(['reveal', 'bad-name'], env, out, out).catch((error: Error) => error);
    t.match(names, { message: /^bad-name is not a secret name/ }, 'a reveal NAME is echoed: it is no value');
  },
);

t.test('a flag of another secrets verb is refused (exit 2), not silently ignored', async (t) => {
  const out = { write: () => true };
  const env = { SVC_URL: 'http://127.0.0.1:1', SVC_TOKEN: 't' };
  const cases: Array<[string[], RegExp]> = [
    [['list', '--key-id', 'k2'], /--key-id belongs to svc secrets rekey, not list/],
    [['reveal', 'API_KEY', '--source', 'vault'], /--source belongs to svc secrets put, not reveal/],
    [['rekey', '--source', 'x'], /--source belongs to svc secrets put, not rekey/],
  ];
  for (const [args, message] of cases) {
    const refused = await runSecrets(args, env, out, out).catch((error: unknown) => error);
    t.type(refused, UsageError, args.join(' '));
    t.match(refused, { message }, args.join(' '));
  }
});
