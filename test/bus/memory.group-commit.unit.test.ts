import Database from 'better-sqlite3';
import { pino } from 'pino';
import t from 'tap';
import { GroupCommit } from '../../bus/memory/group-commit.js';

/** A group commit over a real in-memory SQLite table, counting its hooks. */
function setup() {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE rows (id INTEGER PRIMARY KEY, v TEXT NOT NULL)');
  const seen = { committed: 0, failed: 0, before: 0 };
  const commits = new GroupCommit(db, pino({ level: 'silent' }), Date.now, {
    beforeCommit: () => void (seen.before += 1),
    committed: () => void (seen.committed += 1),
    failed: () => void (seen.failed += 1),
  });
  const insert = db.prepare('INSERT INTO rows (id, v) VALUES (?, ?)');
  const rows = () => db.prepare('SELECT id, v FROM rows ORDER BY id').all();
  return { commits, insert, rows, seen };
}

t.test('a write refused before it wrote fails alone: the rest of its batch is committed', async (t) => {
  const { commits, insert, rows, seen } = setup();
  const outcomes = await Promise.allSettled([
    commits.commit(() => insert.run(1, 'a').changes),
    commits.commit(() => {
      throw new Error('expected revision 3, found 4');
    }),
    commits.commit(() => insert.run(2, 'b').changes),
  ]);
  t.same(
    outcomes.map((o) => o.status),
    ['fulfilled', 'rejected', 'fulfilled'],
  );
  t.match((outcomes[1] as PromiseRejectedResult).reason, /expected revision 3/);
  t.same(rows(), [
    { id: 1, v: 'a' },
    { id: 2, v: 'b' },
  ]);
  t.same(seen, { committed: 1, failed: 0, before: 1 }, 'the once-per-commit writes ran once');
});

t.test(
  'a write that fails after it began writing fails its whole batch: nothing of it is kept',
  async (t) => {
    const { commits, insert, rows, seen } = setup();
    const outcomes = await Promise.allSettled([
      commits.commit(() => insert.run(1, 'a').changes),
      commits.commit(() => {
        insert.run(2, 'half');
        insert.run(2, 'again'); // the primary key refuses it: a storage error mid-write
      }),
      commits.commit(() => insert.run(3, 'c').changes),
    ]);
    t.same(
      outcomes.map((o) => o.status),
      ['rejected', 'rejected', 'rejected'],
      'every caller is told',
    );
    t.same(rows(), [], 'not the first write, not the half of the second');
    t.same(seen, { committed: 0, failed: 1, before: 0 }, 'the cached state is rebuilt');
    t.equal(await commits.commit(() => insert.run(4, 'd').changes), 1, 'the next batch commits');
    t.same(rows(), [{ id: 4, v: 'd' }]);
  },
);

t.test('what is written once per commit is rolled back with its batch when it fails', async (t) => {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE rows (id INTEGER PRIMARY KEY, v TEXT NOT NULL)');
  const insert = db.prepare('INSERT INTO rows (id, v) VALUES (?, ?)');
  let failed = 0;
  const commits = new GroupCommit(db, pino({ level: 'silent' }), Date.now, {
    beforeCommit: () => void insert.run(1, 'the batch wrote id 1 already'),
    committed: () => undefined,
    failed: () => void (failed += 1),
  });
  const outcome = await Promise.allSettled([commits.commit(() => insert.run(1, 'a').changes)]);
  t.equal(outcome[0]?.status, 'rejected', 'the caller is told');
  t.same(db.prepare('SELECT id FROM rows').all(), [], 'nothing of the batch is kept');
  t.equal(failed, 1);
});
