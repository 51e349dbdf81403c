import t from 'tap';
import { hedged } from '../../bus/jetstream/hedge.js';

/** An attempt the test settles by hand, as a server that answers late or never would. */
interface Pending<T> {
  readonly n: number;
  resolve(value: T): void;
  reject(error: unknown): void;
}

function attempts<T>() {
  const started: Array<Pending<T>> = [];
  let onStart: (() => void) | null = null;
  const attempt = (n: number): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      started.push({ n, resolve, reject });
      onStart?.();
    });
  /** Resolves once `count` attempts have started. */
  const until = (count: number): Promise<void> =>
    new Promise((resolve) => {
      const check = (): void => {
        if (started.length >= count) {
          onStart = null;
          resolve();
        }
      };
      onStart = check;
      check();
    });
  return { attempt, started, until };
}

t.test(
  'a lost attempt does not hold the next back: a later one wins while the first is still out',
  async (t) => {
    const { attempt, started, until } = attempts<string>();
    const discarded: string[] = [];
    const won = hedged(attempt, {
      spacingMs: 5,
      maxPending: 10,
      signal: new AbortController().signal,
      discard: (late) => discarded.push(late),
    });
    await until(3);
    started[2]!.resolve('third');
    t.equal(await won, 'third', 'the first success wins');
    started[0]!.resolve('first, late');
    await Promise.resolve();
    t.same(discarded, ['first, late'], 'a success after the winner is handed back to be discarded');
  },
);

t.test('no more than maxPending attempts are out at once; a failure makes room for the next', async (t) => {
  const { attempt, started, until } = attempts<number>();
  const failures: number[] = [];
  const controller = new AbortController();
  const won = hedged(attempt, {
    spacingMs: 2,
    maxPending: 3,
    signal: controller.signal,
    discard: () => undefined,
    onFailure: (_error, n) => failures.push(n),
  });
  await until(3);
  // Many spacings pass with three out: no fourth starts until one of them ends.
  await new Promise((resolve) => setTimeout(resolve, 40));
  t.equal(started.length, 3, 'the cap holds');
  started[1]!.reject(new Error('timeout'));
  await until(4);
  t.same(failures, [2], 'the failure is reported with its attempt number');
  t.equal(started[3]!.n, 4, 'a fourth attempt starts once one has ended');
  started[3]!.resolve(4);
  t.equal(await won, 4);
  controller.abort();
});

t.test('an abort resolves null at once and discards whatever succeeds afterwards', async (t) => {
  const { attempt, started, until } = attempts<string>();
  const discarded: string[] = [];
  const controller = new AbortController();
  const won = hedged(attempt, {
    spacingMs: 60_000,
    maxPending: 5,
    signal: controller.signal,
    discard: (late) => discarded.push(late),
  });
  await until(1);
  controller.abort();
  t.equal(await won, null, 'the hedge ends without waiting for its attempt or its next spacing');
  started[0]!.resolve('late');
  await Promise.resolve();
  t.same(discarded, ['late']);
  t.equal(started.length, 1, 'nothing starts after the abort');
});

t.test('an already aborted signal starts no attempt', async (t) => {
  const { attempt, started } = attempts<string>();
  const controller = new AbortController();
  controller.abort();
  const won = await hedged(attempt, {
    spacingMs: 1,
    maxPending: 5,
    signal: controller.signal,
    discard: () => undefined,
  });
  t.equal(won, null);
  t.equal(started.length, 0);
});
