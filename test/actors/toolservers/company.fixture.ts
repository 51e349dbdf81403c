/** The company the tool-server apply tests change a piece at a time: two echo servers, one per seat, on Ada and Bob. */
import { Company } from '../../../schema/index.js';
import { echoServer } from '../../fixtures/mcp/servers.js';

/** The parts of the document the apply tests edit. */
export interface Doc {
  mcp_servers: Array<Record<string, unknown>>;
  roles: Array<Record<string, unknown>>;
  units: Array<Record<string, unknown>>;
}

/** `files` (shared, prefixed `f_`) and `gh` (one per seat, its token from Ada's seat or Bob's unit). */
export const base = (): Doc => ({
  mcp_servers: [echoServer('files', { tool_prefix: 'f_' }), echoServer('gh', { shared: false })],
  roles: [{ name: 'Ada', mcp_env: { gh: { GH_TOKEN: 'ada-1' } } }],
  units: [{ name: 'eng', type: 'team', mcp_env: { gh: { GH_TOKEN: 'eng-1' } }, roles: [{ name: 'Bob' }] }],
});

export const doc = (d: Doc): Company => Company.parse({ name: 'Acme', ...d });
