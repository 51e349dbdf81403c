/**
 * `providers.queue.replicas` on a real 3-server nats-server cluster: every catalogue stream and bucket gets
 * the configured copies, an operator's higher count survives a node opening with a lower one, and a
 * cluster with too few servers is refused at start. Replica counts are read from the server itself.
 */
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { pino, type Logger } from 'pino';
import t from 'tap';
import {
  Buckets,
  catalogueStreams,
  ensureCatalogue,
  EngineUnavailableError,
  openBus,
  SCHEDULE_CLAIMS_TTL_MS,
  Streams,
  type Bus,
} from '../../bus/index.js';
import { sameSettings, streamConfig } from '../../bus/jetstream/streams.js';
import { startNatsCluster, startNatsServer } from '../harness/nats-server.js';

interface LogRecord {
  readonly level: number;
  readonly msg: string;
  readonly [key: string]: unknown;
}

/** A pino logger whose records are kept for assertions. */
function capturingLogger(): { logger: Logger; records: LogRecord[] } {
  const records: LogRecord[] = [];
  const logger = pino(
    { level: 'info' },
    { write: (line: string) => records.push(JSON.parse(line) as LogRecord) },
  );
  return { logger, records };
}

/** Every stream behind the catalogue: its streams and the `KV_<bucket>` stream of each bucket. */
const catalogue = [...Object.values(Streams), ...Object.values(Buckets).map((b) => `KV_${b}`)];

/** Opens a node's bus and everything a serving node creates on it (the catalogue and the buckets opened elsewhere). */
async function openNode(url: string, replicas: number, logger?: Logger): Promise<Bus> {
  const bus = await openBus({ type: 'jetstream', url, replicas, ...(logger ? { logger } : {}) });
  await ensureCatalogue(bus);
  // Opened by the scheduler and the integration router with these specs.
  await bus.kv({ name: Buckets.ScheduleClaims, ttlMs: SCHEDULE_CLAIMS_TTL_MS });
  await bus.kv({ name: Buckets.WikiWatchers, history: 4 });
  // Opened by the backup records (scripts/backup-wiring.ts) with this spec.
  await bus.kv({ name: Buckets.Backups, history: 1 });
  // Opened by the work projection (projections/work/work.snapshots.ts) with this spec.
  await bus.kv({ name: Buckets.WorkSnapshots, history: 1 });
  // Opened by the tool skills (scripts/skills-wiring.ts) with this spec.
  await bus.kv({ name: Buckets.ToolSkills, history: 2 });
  // Opened by the seats' counterparty profiles (scripts/subsystems-wiring.ts) with this spec.
  await bus.kv({ name: Buckets.Counterparty, history: 1 });
  // Opened by the seats' episode lifecycle (scripts/subsystems-wiring.ts) with this spec.
  await bus.kv({ name: Buckets.Episodes, history: 1 });
  // Opened by the alarm host (actors/alarms/alarms.host.ts) with this spec.
  await bus.kv({ name: Buckets.Alarms, history: 1 });
  return bus;
}

/** The configured replica count of each catalogue stream, as the server reports it. */
async function replicasOf(jsm: JetStreamManager): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const name of catalogue) counts[name] = (await jsm.streams.info(name)).config.num_replicas;
  return counts;
}

const every = (n: number): Record<string, number> => Object.fromEntries(catalogue.map((name) => [name, n]));

t.test('on a 3-server cluster', async (t) => {
  const cluster = await startNatsCluster(3, { t });
  const url = cluster.urls.join(',');
  const admin = await connect({ servers: [...cluster.urls] });
  t.teardown(() => admin.close());
  const jsm = await jetstreamManager(admin);
  const deleteAll = async (): Promise<void> => {
    for (const name of catalogue) await jsm.streams.delete(name).catch(() => undefined);
  };

  t.test('a node opened with replicas 3 creates every stream and bucket with 3 copies', async (t) => {
    const bus = await openNode(url, 3);
    await bus.close();
    t.same(await replicasOf(jsm), every(3));
    for (const name of catalogue) {
      const { cluster: placed } = await jsm.streams.info(name);
      t.equal(1 + (placed?.replicas?.length ?? 0), 3, `${name} is placed on 3 servers`);
    }
    // What the server reads back counts as unchanged, so the next start makes no write to these streams.
    for (const spec of catalogueStreams()) {
      const { config } = await jsm.streams.info(spec.name);
      t.ok(sameSettings(streamConfig(spec, 3), config), `${spec.name} reads back as written`);
      t.notOk(sameSettings(streamConfig(spec, 1), config), `${spec.name} at 1 replica would be a change`);
    }
    await deleteAll();
  });

  t.test('an operator scaled to 3 stays 3 when a node opens with 1, and the warning names it', async (t) => {
    await (await openNode(url, 1)).close();
    t.same(await replicasOf(jsm), every(1));
    // The operator scales one stream and one bucket by hand.
    await jsm.streams.update(Streams.Events, { num_replicas: 3 });
    await jsm.streams.update(`KV_${Buckets.Coord}`, { num_replicas: 3 });

    const { logger, records } = capturingLogger();
    await (await openNode(url, 1, logger)).close();
    t.same(await replicasOf(jsm), {
      ...every(1),
      [Streams.Events]: 3,
      [`KV_${Buckets.Coord}`]: 3,
    });
    const warnings = records
      .filter((r) => r.level === 40 && /more replicas than configured/.test(r.msg))
      .map((r) => ({ stream: r['stream'], replicas: r['replicas'], configured: r['configured'] }));
    t.same(
      warnings.sort((a, b) => String(a.stream).localeCompare(String(b.stream))),
      [
        { stream: `KV_${Buckets.Coord}`, replicas: 3, configured: 1 },
        { stream: Streams.Events, replicas: 3, configured: 1 },
      ],
      'one warning per stream kept above the configured count',
    );

    // A node with replicas 3 raises the rest.
    await (await openNode(url, 3)).close();
    t.same(await replicasOf(jsm), every(3));
  });

  t.test('replicas 5 on 3 servers is refused at start, naming the cluster and its size', async (t) => {
    const refused = await openBus({ type: 'jetstream', url, replicas: 5 }).catch((e: unknown) => e);
    t.type(refused, EngineUnavailableError);
    t.match(
      (refused as Error).message,
      /providers\.queue\.replicas is 5, but the NATS cluster "svc-test-\d+-\d+" at .* has 3 servers: every copy needs its own server/,
    );
  });

  t.test('with one server down a node still opens on streams that already hold 3 copies', async (t) => {
    await cluster.servers[2]!.stop();
    // Wait until the survivors' INFO no longer lists the stopped server (the record that says it left).
    for (const server of cluster.servers.slice(0, 2)) {
      for (let seen = 3; seen > 2;) {
        const probe = await connect({ servers: server.url });
        seen = new Set(probe.info?.connect_urls ?? []).size;
        await probe.close();
      }
    }
    const survivors = cluster.servers
      .slice(0, 2)
      .map((s) => s.url)
      .join(',');
    const { logger, records } = capturingLogger();
    const bus = await openNode(survivors, 3, logger);
    await bus.close();
    t.ok(
      records.some(
        (r) => r.level === 40 && r['servers_up'] === 2 && r['servers_known'] === 3 && r['replicas'] === 3,
      ),
      'the shortfall is logged as a warning, not refused',
    );
    const survivor = await connect({ servers: survivors });
    t.teardown(() => survivor.close());
    t.same(await replicasOf(await jetstreamManager(survivor)), every(3));
  });
});

t.test('replicas 3 against a single server is refused at start, naming the server', async (t) => {
  const server = await startNatsServer({ t });
  const refused = await openBus({ type: 'jetstream', url: server.url, replicas: 3 }).catch((e: unknown) => e);
  t.type(refused, EngineUnavailableError);
  t.match(
    (refused as Error).message,
    /providers\.queue\.replicas is 3, but the NATS server at nats:\/\/127\.0\.0\.1:\d+ \(\S+\) is not part of a cluster/,
  );
  const single = await openBus({ type: 'jetstream', url: server.url, replicas: 1 });
  await single.close();
  t.pass('replicas 1 opens on the same server');
});

t.test('the in-process and embedded engines refuse replicas other than 1', async (t) => {
  await t.rejects(openBus({ type: 'memory', replicas: 3 }), {
    name: 'EngineUnavailableError',
    message: /replicas 3 needs providers\.queue\.type jetstream on a cluster; memory keeps one copy/,
  });
  await t.rejects(openBus({ type: 'jetstream-embedded', storeDir: '/nonexistent', replicas: 2 }), {
    name: 'EngineUnavailableError',
    message: /jetstream-embedded keeps one copy/,
  });
});
