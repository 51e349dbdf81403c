/**
 * Leak test: secret values written through every path this build has must never come back out —
 * not in an HTTP answer, not in a log line, not in any file under the store directory (SQLite
 * databases and WAL) — raw, JSON-escaped, hex or base64. The one deliberate exit, reveal, is checked
 * separately as the positive control.
 */
import { readdirSync } from 'node:fs';
import t from 'tap';
import { bootNode, storeDir, TOKEN } from '../harness/serve-store.js';
import { keyringYaml, material } from '../http/fixtures/secrets-node.js';
import { LeakDetector } from './fixtures/leak-detector.js';
import {
  distinct,
  observers,
  readsAfter,
  writePaths,
  type Answer,
  type LeakNode,
} from './fixtures/leak-paths.js';

/** Each engine's own files are searched: SQLite and its WAL, or the embedded nats-server's file store. */
for (const queue of ['memory', 'jetstream-embedded'] as const)
  t.test(
    `no planted secret comes out of any answer, log line, socket frame or store file (${queue})`,
    async (t) => {
      const detector = new LeakDetector();
      detector.plant('operator_token', TOKEN);
      detector.plant('key_material_k1', material(1));
      detector.plant('key_material_k2', material(2));
      const envOnly = distinct(detector, 'env_only_key');
      const store = storeDir(t, queue);
      const booted = await bootNode(t, store, `debug: true\n${keyringYaml('k2', ['k1', 1], ['k2', 2])}`, {
        ENV_ONLY_KEY: envOnly,
      });
      const answers: Answer[] = [];
      const node: LeakNode = {
        async call(method, path, opts = {}) {
          const res = await booted.call(method, path, opts);
          const head = [...res.headers.entries()].map(([k, v]) => `${k}: ${v}`).join('\n');
          const body = Buffer.from(await res.arrayBuffer()).toString('latin1');
          const answer = {
            what: `${method} ${path}`,
            status: res.status,
            text: `${res.status}\n${head}\n\n${body}`,
          };
          answers.push(answer);
          return answer;
        },
      };

      const watching = await Promise.all(
        observers.map(async (o) => ({
          name: o.name,
          seen: await o.start({ url: booted.url, token: TOKEN }),
        })),
      );

      // 1. write through every path
      for (const path of writePaths) await t.resolves(path.write(node, detector), path.name);

      // 2. read everything back
      const revisions = JSON.parse((await node.call('GET', '/config/revisions')).text.split('\n\n')[1]!) as {
        revisions: Array<{ revision_id: string }>;
      };
      for (const path of readsAfter(revisions.revisions.map((r) => r.revision_id))) {
        const answer = await node.call('GET', path);
        t.ok(answer.status < 500, `${path} answered ${answer.status}`);
      }

      // 3. positive control: the store holds the planted values, and reveal (the one deliberate exit) gives them
      const revealed = await booted.call('GET', '/secrets/STORED_TEXT?reveal=true');
      const storedText = detector.values.find((v) => v.label === 'store_text')!.value;
      t.equal(await revealed.text(), storedText);
      t.ok(
        detector.search('control', `{"x":${JSON.stringify(storedText)}}`).length > 0,
        'the detector sees a value',
      );

      // 4. search answers, logs (while running), files (while running and after the stop)
      const leaks = [
        ...answers.flatMap((a) => detector.search(`answer ${a.what}`, a.text)),
        ...detector.search('stdout', booted.run.stdout()),
        ...detector.search('stderr', booted.run.stderr()),
        ...detector.searchDir(store.storeDir),
      ];
      for (const { name, seen } of watching) {
        await seen.stop();
        leaks.push(...seen.texts().flatMap((text) => detector.search(name, text)));
      }
      t.equal(await booted.stop(), 0);
      leaks.push(
        ...detector.search('stdout after stop', booted.run.stdout()),
        ...detector.searchDir(store.storeDir).map((l) => ({ ...l, where: `${l.where} (after stop)` })),
      );
      t.ok(answers.length > 40, `searched ${answers.length} answers`);
      t.ok(booted.run.lines.length > 20, `searched ${booted.run.lines.length} log lines`);
      t.ok(detector.values.length > 25, `planted ${detector.values.length} values`);
      const files = readdirSync(store.storeDir, { recursive: true, withFileTypes: true }).filter((e) =>
        e.isFile(),
      );
      t.ok(files.length > 0, `searched ${files.length} store files`);
      t.same(leaks, [], 'zero hits');
    },
  );
