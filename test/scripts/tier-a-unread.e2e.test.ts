/**
 * Tier A keys the spec lists but no subsystem of this release reads (`providers.database.dsn`,
 * `providers.knowledge.type`) are said at start, once each, rather than accepted in silence.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { runSvc } from '../harness/child.js';
import { freePort } from '../harness/free-port.js';

t.test(
  'providers.database and providers.knowledge log a warning at start that nothing reads them',
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-unread-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const port = await freePort();
    const file = join(dir, 'config.yaml');
    writeFileSync(
      file,
      [
        'providers:',
        '  database: {dsn: "postgres://svc:${DB_PASSWORD}@db.internal/svc"}',
        '  knowledge: {type: pgvector}',
        `api: {host: 127.0.0.1, port: ${port}}`,
      ].join('\n'),
    );
    const run = runSvc(['serve', '--config', file], { DB_PASSWORD: 'hunter2-db-secret' });
    t.teardown(() => run.kill('SIGKILL'));
    await run.waitForLog((line) => line.msg === 'node serving');
    const unread = run.lines.filter((line) => line['event'] === 'tier_a_not_applied');
    t.same(
      unread.map((line) => [line.level, line['key']]),
      [
        [40, 'providers.database.dsn'],
        [40, 'providers.knowledge.type'],
      ],
    );
    t.notMatch(JSON.stringify(run.lines), /hunter2-db-secret/, 'the dsn is never logged');
    run.kill('SIGTERM');
    t.equal(await run.exited, 0);
  },
);
