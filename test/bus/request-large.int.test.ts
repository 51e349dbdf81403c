/**
 * `requestLarge`: a reply larger than one bus message (1 MiB on a default nats-server) reaches the
 * requester whole on both engines; on JetStream it travels in parts between two connections, a plain
 * `request` is told the limit, a replier of an earlier release (one message) is read as it is, and parts
 * that never come are an IncompleteReplyError, never a shorter reply.
 */
import { connect, headers as natsHeaders } from '@nats-io/transport-node';
import t, { type Test } from 'tap';
import { IncompleteReplyError, NoRespondersError, openMemoryBus, type Bus } from '../../bus/index.js';
import { openJetStreamBus } from '../../bus/jetstream/index.js';
import { startNatsServer } from '../harness/nats-server.js';
import { untilAnswered } from './contract-helpers.js';

const enc = new TextEncoder();
const dec = new TextDecoder();

/** `size` bytes whose every position says where it belongs, so a part out of place shows. */
function patterned(size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i += 1) bytes[i] = (i * 31 + (i >> 16)) % 251;
  return bytes;
}

const large = patterned(5 * 1024 * 1024 + 12_345);

/** Answers `big` with `large`, `small.*` with its own subject, `broken` with an error. */
function answerOn(bus: Bus, prefix: string) {
  return [
    bus.reply(`${prefix}.big`, async () => large),
    bus.reply(`${prefix}.small.*`, async (msg) => enc.encode(msg.subject)),
    bus.reply(`${prefix}.broken`, async () => {
      throw new Error('refused');
    }),
  ];
}

async function wholeReplies(t: Test, asking: Bus, prefix: string): Promise<void> {
  const reply = await asking.requestLarge(`${prefix}.big`, enc.encode('?'), { timeoutMs: 5_000 });
  t.equal(reply.data.length, large.length, 'every byte arrived');
  t.ok(Buffer.from(reply.data).equals(Buffer.from(large)), 'in its place');
  t.same(reply.headers, {}, 'no part marker left on the joined reply');
  const small = await asking.requestLarge(`${prefix}.small.one`, enc.encode('?'), { timeoutMs: 10_000 });
  t.equal(dec.decode(small.data), `${prefix}.small.one`, 'a reply that fits is one message');
  await t.rejects(asking.requestLarge(`${prefix}.broken`, enc.encode('?'), { timeoutMs: 10_000 }), {
    name: 'RemoteError',
    message: 'refused',
  });
  await t.rejects(
    asking.requestLarge(`${prefix}.none`, enc.encode('?'), { timeoutMs: 10_000 }),
    NoRespondersError,
  );
}

t.test('a reply larger than one bus message reaches requestLarge whole on the memory engine', async (t) => {
  const bus = await openMemoryBus({});
  t.teardown(() => bus.close());
  const repliers = answerOn(bus, 'mem');
  t.teardown(() => Promise.all(repliers.map((r) => r.stop())));
  await wholeReplies(t, bus, 'mem');
});

t.test('on JetStream a reply past max_payload travels in parts and is joined whole', async (t) => {
  const server = await startNatsServer({ t });
  const asking = await openJetStreamBus({ url: server.url });
  t.teardown(() => asking.close());
  const answering = await openJetStreamBus({ url: server.url });
  t.teardown(() => answering.close());
  const repliers = answerOn(answering, 'js');
  t.teardown(() => Promise.all(repliers.map((r) => r.stop())));
  await untilAnswered(asking, 'js.small.probe');

  await wholeReplies(t, asking, 'js');
  await t.rejects(
    asking.request('js.big', enc.encode('?'), { timeoutMs: 10_000 }),
    { name: 'RemoteError', message: /larger than one bus message \(1048576 bytes\)/ },
    'a requester that reads one message is told the limit, not left waiting',
  );
});

t.test('on JetStream a replier sending one message, as an earlier release does, is read', async (t) => {
  const server = await startNatsServer({ t });
  const asking = await openJetStreamBus({ url: server.url });
  t.teardown(() => asking.close());
  const earlier = await connect({ servers: server.url });
  t.teardown(() => earlier.close());
  // It knows nothing of parts: it answers every request with one message, whatever the request says.
  earlier.subscribe('old.ask', { callback: (_, msg) => void msg.respond(enc.encode('one message')) });
  await earlier.flush();
  const reply = await asking.requestLarge('old.ask', enc.encode('?'), { timeoutMs: 10_000 });
  t.equal(dec.decode(reply.data), 'one message');
});

t.test('on JetStream parts that never arrive fail the request, never a shorter reply', async (t) => {
  const server = await startNatsServer({ t });
  const asking = await openJetStreamBus({ url: server.url });
  t.teardown(() => asking.close());
  const lossy = await connect({ servers: server.url });
  t.teardown(() => lossy.close());
  const part = (marker: string) => {
    const headers = natsHeaders();
    headers.set('Svc-Part', marker);
    return { headers };
  };
  // Parts 1 and 3 of 3 are sent; part 2 is lost.
  lossy.subscribe('lossy.ask', {
    callback: (_, msg) => {
      msg.respond(enc.encode('first'), part('1/3'));
      msg.respond(enc.encode('third'), part('3/3'));
    },
  });
  // The count changes between parts.
  lossy.subscribe('lossy.disagree', {
    callback: (_, msg) => {
      msg.respond(enc.encode('first'), part('1/2'));
      msg.respond(enc.encode('second'), part('2/3'));
    },
  });
  await lossy.flush();
  await t.rejects(
    asking.requestLarge('lossy.ask', enc.encode('?'), { timeoutMs: 300 }),
    { name: 'IncompleteReplyError', message: /2 of 3 parts arrived within 300 ms/ },
    'the missing part is named once the time is out',
  );
  await t.rejects(
    asking.requestLarge('lossy.disagree', enc.encode('?'), { timeoutMs: 10_000 }),
    IncompleteReplyError,
    'parts that disagree fail at once',
  );
});
