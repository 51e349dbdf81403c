/**
 * A periodic job runs one at a time: a call while a run is under way shares it, a timed run's failure
 * reaches `onError`, and `stop` waits for the run under way.
 */
import t from 'tap';
import { startPeriodic } from '../../actors/periodic.js';

t.test('a call while a run is under way shares it; the next call starts a new one', async (t) => {
  let runs = 0;
  let finish = (): void => undefined;
  const job = startPeriodic(
    () => new Promise<number>((resolve) => ((runs += 1), (finish = () => resolve(runs)))),
    { everyMs: 0 },
  );
  const [a, b] = [job.run(), job.run()];
  t.equal(a, b, 'the same run');
  finish();
  t.same(await Promise.all([a, b]), [1, 1]);
  const c = job.run();
  finish();
  t.equal(await c, 2, 'a run after the last one ended is a new one');
  await job.stop();
});

t.test("a timed run's failure reaches onError; stop waits for the run under way", async (t) => {
  const failed: unknown[] = [];
  let ended = false;
  let started = (): void => undefined;
  const firstRun = new Promise<void>((resolve) => (started = resolve));
  const job = startPeriodic(
    async () => {
      started();
      await new Promise((resolve) => setImmediate(resolve));
      ended = true;
      throw new Error('boom');
    },
    { everyMs: 1, onError: (error) => failed.push(error) },
  );
  // The job's timer keeps no process alive (unref'd): this one does, until the first timed run began.
  const alive = setInterval(() => undefined, 60_000);
  await firstRun;
  clearInterval(alive);
  await job.stop();
  t.ok(ended, 'stop resolved only after the run under way ended');
  t.match(failed, [{ message: 'boom' }], 'the timed failure was told');
  await t.rejects(job.run(), { message: 'boom' }, 'a run asked for fails to its caller');
});
