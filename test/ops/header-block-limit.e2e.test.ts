/**
 * README "Known limits": uWebSockets.js keeps at most 4 KiB (4,096 bytes) of a request line and headers that
 * arrive over more than one read. A block over that, completed by a later read, is closed at once, unanswered;
 * the same bytes arriving in one read are parsed. This test pins the figure, so a transport that lifts it
 * fails here and the README line goes.
 */
import t from 'tap';
import { rawClient, startHarness } from '../http/fixtures/gateway-harness.js';

/** `GET /health` with one padding header, `size` bytes up to and including the blank line. */
function request(size: number): string {
  const head = 'GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Pad: ';
  return `${head}${'a'.repeat(size - head.length - 4)}\r\n\r\n`;
}

t.test(
  'a header block over 4 KiB that arrives in two reads is closed unanswered; in one read it is answered',
  async (t) => {
    const h = await startHarness();
    t.teardown(() => h.gw.close());

    /** Whole request on a fresh connection: what it received, and when it closed. */
    const whole = async (text: string) => {
      const c = await rawClient(h.gw.port);
      c.socket.write(text);
      await c.closed;
      return c.received();
    };
    /** The block but its last CRLF, then the CRLF once the server has read the first part. */
    const inTwoReads = async (size: number) => {
      const c = await rawClient(h.gw.port);
      c.socket.write(request(size).slice(0, -2));
      // The loop reads every ready socket before it answers a later one: once another connection's answer is
      // back, the first part has been read on its own.
      t.match(await whole(request(100)), /^HTTP\/1\.1 200 /, 'barrier answered');
      c.socket.write('\r\n');
      const closedMs = await c.closed;
      return { received: c.received(), closedMs };
    };

    const [under, over] = await Promise.all([inTwoReads(4_096), inTwoReads(4_097)]);
    t.match(under.received, /^HTTP\/1\.1 200 /, '4,096 bytes in two reads: answered');
    t.equal(over.received, '', '4,097 bytes in two reads: no answer');
    t.ok(
      over.closedMs < 5_000,
      `closed at once, not at the header timeout (${Math.round(over.closedMs)} ms)`,
    );
    t.match(await whole(request(16_000)), /^HTTP\/1\.1 200 /, '16,000 bytes in one write: answered');
  },
);
