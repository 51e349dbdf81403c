/**
 * A served node that stored a one-seat company (Ada, handle `ada`) and then stopped, so a test can write
 * what only an older history would hold straight into its memory-engine store, then serve the store again.
 */
import { join } from 'node:path';
import type { Test } from 'tap';
import { ensureCatalogue, openMemoryBus, type Bus } from '../../bus/index.js';
import type { SvcChild } from './child.js';
import { call } from './api.js';
import { serveAgain, startNode, type ServedNode } from './serve-node.js';

export interface StoppedNode {
  readonly node: ServedNode;
  /** Ada's runtime agent id, as `/agents` read it before the stop. */
  readonly agentId: string;
  /** Opens the stopped node's store (catalogue ensured); the caller closes it before `restart`. */
  openStore(): Promise<{ bus: Bus } & Awaited<ReturnType<typeof ensureCatalogue>>>;
  /** Serves the same store and Tier A file again; resolves once the node serves. */
  restart(): Promise<SvcChild>;
}

export async function stoppedNodeWithAda(t: Test): Promise<StoppedNode> {
  const node = await startNode(t);
  const put = await call(node.url, 'PUT', '/config', {
    name: 'Acme',
    timezone: 'UTC',
    roles: [{ name: 'Ada', handle: 'ada' }],
  });
  t.equal(put.status, 201, 'the company is stored');
  await node.run.waitForLog((line) => line.msg === 'config applied');
  const [ada] = (await (await fetch(`${node.url}/agents`)).json()) as Array<{ agent_id: string }>;
  node.run.kill('SIGTERM');
  t.equal(await node.run.exited, 0, 'the first node stopped cleanly');
  return {
    node,
    agentId: ada!.agent_id,
    async openStore() {
      const bus = await openMemoryBus({ storeDir: join(node.dir, 'data') });
      return { bus, ...(await ensureCatalogue(bus)) };
    },
    restart: () => serveAgain(t, node),
  };
}
