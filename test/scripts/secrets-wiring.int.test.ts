import { pino } from 'pino';
import t from 'tap';
import { ensureCatalogue } from '../../bus/index.js';
import { openMemoryBus } from '../../bus/memory/index.js';
import { Commands, parseTierA } from '../../schema/index.js';
import { startSecrets } from '../../scripts/secrets-wiring.js';
import { keyringYaml } from '../http/fixtures/secrets-node.js';

const enc = new TextEncoder();

function capture() {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino(
    { level: 'info' },
    { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
  );
  return { lines, logger };
}

t.test(
  'a node names at boot the stored secrets it cannot open, and resolves them from the environment',
  async (t) => {
    const bus = await openMemoryBus({});
    t.teardown(() => bus.close());
    const { secrets: bucket } = await ensureCatalogue(bus);
    const tierA = (text: string) => {
      const parsed = parseTierA(text, { env: {}, cwd: '/' });
      if (!parsed.ok) throw new Error('tier A');
      return parsed.config;
    };
    const first = await startSecrets({
      bus,
      bucket,
      config: tierA(keyringYaml('k1', ['k1', 1])),
      logger: capture().logger,
      env: {},
    });
    await bus.request(
      Commands.secrets.put.subject,
      enc.encode(
        JSON.stringify({
          name: 'OLD_KEY_VALUE',
          value_b64: 'eA==',
          source: 'api',
          actor: { id: 'ops', kind: 'operator' },
        }),
      ),
      { timeoutMs: 5000 },
    );
    await first.stop();

    const other = capture();
    const second = await startSecrets({
      bus,
      bucket,
      config: tierA(keyringYaml('k2', ['k2', 2])),
      logger: other.logger,
      env: { OLD_KEY_VALUE: 'from-env' },
    });
    t.teardown(() => second.stop());
    t.match(
      other.lines.find((l) => l['event'] === 'secret_keys_missing'),
      { names: ['OLD_KEY_VALUE'], key_ids: ['k1'] },
    );
    t.equal(second.resolve('OLD_KEY_VALUE'), 'from-env');
    t.equal(second.resolve('OLD_KEY_VALUE'), 'from-env');
    t.equal(
      other.lines.filter((l) => l['event'] === 'secret_unreadable').length,
      1,
      'told once, not on every resolution',
    );

    const bare = capture();
    const third = await startSecrets({ bus, bucket, config: tierA(''), logger: bare.logger, env: {} });
    t.teardown(() => third.stop());
    t.match(
      bare.lines.find((l) => l['event'] === 'secret_keys_missing'),
      { msg: /no keyring/ },
    );
    t.equal(third.resolve('OLD_KEY_VALUE'), undefined);
  },
);
