import { createHash } from 'node:crypto';
import t, { type Test } from 'tap';
import { defaultPayloadCacheLimits, type ConfigState } from '../../projections/index.js';
import { company, startConfigNode, type ConfigNode } from './fixtures/config-node.js';

type Json = Record<string, unknown>;

const REVISIONS = 300;
/** About 50 KB of text unique to revision `n`, so a payload read back from the wrong place shows. */
const mission = (n: number): string =>
  `revision ${n}: ` + createHash('sha256').update(`mission ${n}`).digest('hex').repeat(780);

async function put(node: ConfigNode, n: number): Promise<string> {
  const res = await node.call('PUT', '/config', {
    body: { ...company(), mission: mission(n) },
    headers: { 'x-summary': `revision ${n}` },
  });
  if (res.status !== 201) throw new Error(`PUT ${n} answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { revision_id: string }).revision_id;
}

async function read(node: ConfigNode, path: string): Promise<Json> {
  const res = await node.call('GET', path);
  if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as Json;
}

/** The cache holds the active document plus at most its bound, however long the history. */
function assertBounded(t: Test, state: ConfigState, what: string): void {
  const stats = state.payloads.stats();
  t.ok(stats.entries <= defaultPayloadCacheLimits.maxEntries, `${what}: ${stats.entries} documents cached`);
  t.ok(stats.bytes <= defaultPayloadCacheLimits.maxBytes, `${what}: ${stats.bytes} bytes cached`);
  t.equal(stats.active?.resident, true, `${what}: the active document is held`);
  t.notOk(
    [...state.revisions.values()].some((r) => 'payload' in r),
    `${what}: the revision table holds metadata only`,
  );
}

t.test(
  `${REVISIONS} revisions of ~50 KB: memory holds metadata and a bounded cache, and every revision reads back identical`,
  async (t) => {
    const node = await startConfigNode(t);
    const ids: string[] = [];
    /** Each revision's answer right after it was stored, while it was certainly still cached. */
    const fresh: string[] = [];
    for (let n = 0; n < REVISIONS; n += 1) {
      const id = await put(node, n);
      ids.push(id);
      fresh.push(JSON.stringify((await read(node, `/config/revisions/${id}`))['payload']));
    }
    const state = node.configuration.view.state;
    t.equal(state.revisions.size, REVISIONS);
    assertBounded(t, state, 'after the writes');

    // 1. every revision, oldest first (so nearly all come from the stream), answers what it answered fresh
    const loadsBefore = state.payloads.stats().loads;
    let identical = 0;
    for (let n = 0; n < REVISIONS; n += 1) {
      const body = await read(node, `/config/revisions/${ids[n]}`);
      if (JSON.stringify(body['payload']) === fresh[n] && body['summary'] === `revision ${n}`) identical += 1;
    }
    t.equal(identical, REVISIONS, 'every revision reads back byte-identical');
    t.ok(
      state.payloads.stats().loads - loadsBefore >= REVISIONS - defaultPayloadCacheLimits.maxEntries - 1,
      'the old documents were read from the stream, not kept',
    );
    assertBounded(t, state, 'after reading every revision');

    // 2. a diff between two old revisions
    const diff = await read(node, `/config/revisions/${ids[10]}/diff?against=${ids[20]}`);
    t.same(diff, {
      from: ids[20],
      to: ids[10],
      changes: [{ path: 'mission', kind: 'changed', from: mission(20), to: mission(10) }],
      changes_total: 1,
    });

    // 3. a revert to an old one
    const revert = await node.call('POST', `/config/revisions/${ids[5]}/revert`, {
      headers: { 'x-summary': 'back to 5' },
    });
    t.equal(revert.status, 201);
    const reverted = ((await revert.json()) as { revision_id: string; epoch: number }).revision_id;
    t.ok(await node.configuration.view.until((s) => s.active?.revision_id === reverted, 30_000));
    t.equal((await read(node, '/config'))['mission'], mission(5), 'the active document is revision 5 again');
    assertBounded(t, state, 'after the revert');

    // 4. a node booting on the same stream holds the same bound, and serves old revisions the same way
    const second = await startConfigNode(t, { bus: node.bus });
    const booted = second.configuration.view.state;
    t.equal(booted.revisions.size, REVISIONS + 1);
    assertBounded(t, booted, 'after a boot replaying the history');
    t.equal((await read(second, '/config'))['mission'], mission(5));
    t.equal(JSON.stringify((await read(second, `/config/revisions/${ids[0]}`))['payload']), fresh[0]);
  },
);
