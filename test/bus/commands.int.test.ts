import t, { type Test } from 'tap';
import { z } from 'zod';
import {
  BusError,
  CommandReplyError,
  NoRespondersError,
  openMemoryBus,
  RemoteError,
  RequestTimeoutError,
  sendCommand,
  serveCommand,
  type Bus,
} from '../../bus/index.js';
import { defineCommand } from '../../schema/index.js';

const request = z.object({ n: z.number(), note: z.string().default('none') });
const reply = z.object({ doubled: z.number(), note: z.string() });
const Double = defineCommand({ area: 'test', verb: 'double', request, reply, timeoutMs: 10_000 });

const enc = new TextEncoder();
const dec = new TextDecoder();

async function memoryBus(t: Test): Promise<Bus> {
  const bus = await openMemoryBus();
  t.teardown(() => bus.close());
  return bus;
}

t.test('a served command answers the validated request with the encoded reply', async (t) => {
  const bus = await memoryBus(t);
  const seen: unknown[] = [];
  const sub = serveCommand(bus, Double, (body) => {
    seen.push(body);
    return { doubled: body.n * 2, note: body.note };
  });
  t.teardown(() => sub.stop());
  t.same(await sendCommand(bus, Double, { n: 2 }), { doubled: 4, note: 'none' });
  t.same(seen, [{ n: 2, note: 'none' }], 'the handler sees the schema output (defaults applied)');
  t.equal(Double.subject, 'svc.cmd.test.double');
});

t.test(
  'an invalid request gets an error reply naming the problem and the server keeps answering',
  async (t) => {
    const bus = await memoryBus(t);
    let calls = 0;
    const sub = serveCommand(bus, Double, (body) => {
      calls += 1;
      return { doubled: body.n * 2, note: body.note };
    });
    t.teardown(() => sub.stop());
    const wrongShape = bus.request(Double.subject, enc.encode(JSON.stringify({ n: 'hunter2' })), {
      timeoutMs: 10_000,
    });
    await t.rejects(wrongShape, RemoteError);
    const message = await wrongShape.catch((e: Error) => e.message);
    t.match(message, /test\.double: the request does not match its schema \(n: /);
    t.notMatch(message, /hunter2/, 'the offending value never travels back');
    await t.rejects(bus.request(Double.subject, enc.encode('{not json'), { timeoutMs: 10_000 }), {
      name: 'RemoteError',
      message: /not JSON/,
    });
    t.equal(calls, 0, 'the handler never saw either');
    t.same(await sendCommand(bus, Double, { n: 5, note: 'x' }), { doubled: 10, note: 'x' });
  },
);

t.test('a command whose reply can refuse answers an invalid request in band', async (t) => {
  const bus = await memoryBus(t);
  const sub = serveCommand(bus, Double, (body) => ({ doubled: body.n * 2, note: body.note }), {
    invalid: (raw, issues) => ({
      doubled: -1,
      note: `${raw === undefined ? 'unreadable' : 'malformed'}: ${issues.map((i) => i.path).join(',')}`,
    }),
  });
  t.teardown(() => sub.stop());
  const answer = async (bytes: string): Promise<unknown> =>
    JSON.parse(
      dec.decode((await bus.request(Double.subject, enc.encode(bytes), { timeoutMs: 10_000 })).data),
    );
  t.same(await answer('{"n":"x"}'), { doubled: -1, note: 'malformed: n' });
  t.same(await answer('nope'), { doubled: -1, note: 'unreadable: ' });
});

t.test('a reply that does not match the catalogue is a typed error, not a bus error', async (t) => {
  const bus = await memoryBus(t);
  const answers = ['{"doubled":"four","note":"x"}', 'not json'];
  const sub = bus.reply(Double.subject, () => Promise.resolve(enc.encode(answers.shift() ?? '')));
  t.teardown(() => sub.stop());
  const wrongShape = await sendCommand(bus, Double, { n: 2 }).catch((e: unknown) => e);
  t.ok(wrongShape instanceof CommandReplyError);
  t.notOk(wrongShape instanceof BusError, 'the transport worked: never read as an unknown outcome');
  t.same(
    (wrongShape as CommandReplyError).issues.map((i) => i.path),
    ['doubled'],
  );
  t.equal((wrongShape as CommandReplyError).command, 'test.double');
  await t.rejects(sendCommand(bus, Double, { n: 2 }), { name: 'CommandReplyError', message: /not JSON/ });
});

t.test('transport failures pass through as the bus typed errors', async (t) => {
  const bus = await memoryBus(t);
  await t.rejects(sendCommand(bus, Double, { n: 1 }), NoRespondersError, 'nobody serves it');

  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  const Slow = defineCommand({ area: 'test', verb: 'slow', request, reply, timeoutMs: 50 });
  const slow = serveCommand(bus, Slow, async (body) => {
    await held;
    return { doubled: body.n, note: body.note };
  });
  const failing = serveCommand(bus, Double, () => {
    throw new Error('store unavailable');
  });
  t.teardown(async () => {
    release();
    await slow.stop();
    await failing.stop();
  });
  await t.rejects(sendCommand(bus, Slow, { n: 1 }), RequestTimeoutError, 'the catalogue timeout applies');
  await t.rejects(sendCommand(bus, Slow, { n: 1 }, { timeoutMs: 20 }), {
    name: 'RequestTimeoutError',
    message: /after 20 ms/,
  });
  await t.rejects(sendCommand(bus, Double, { n: 1 }), { name: 'RemoteError', message: 'store unavailable' });
});
