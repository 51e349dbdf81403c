/** What the setup routes are given by the node's wiring (the secret store, the integration actors, their runs). */
import type { Bus } from '../../../bus/index.js';
import type { ConfigState } from '../../../projections/index.js';
import type {
  IntegrationCommand,
  IntegrationReply,
  IntegrationVerb,
  LookupAnswer,
  PassRun,
  RevisionRecord,
} from '../../../schema/index.js';
import type { Actor, AuthSettings } from '../../types.js';

/** The passes every node has recorded (the integrations read model). */
export interface PassRuns {
  /** Passes of `kind`, newest first, after the run `before` (exclusive). */
  list(kind: string, opts: { before?: string; limit: number }): { runs: PassRun[]; more: boolean };
  get(kind: string, id: string): PassRun | null;
  /** Resolves once this node's history holds every pass recorded so far. */
  sync(): Promise<void>;
}

/** The configuration side, shared by the routes and the integration actors' pass source. */
export interface SetupConfigDeps {
  readonly state: () => ConfigState;
  /** Opens a stored payload (decrypts a sealed one); throws when this node cannot. */
  readonly openPayload: (record: RevisionRecord) => unknown;
  readonly untilEpoch: (epoch: number, timeoutMs: number) => Promise<boolean>;
  readonly bus: Bus;
  /** `${NAME}` resolution: the secret store first, then the environment; null when unanswered. */
  readonly lookup: (name: string) => Promise<LookupAnswer | null>;
  /** The key id `name` is sealed under when the store holds it but this node's keyring lacks that key; else null. */
  readonly unreadableKey?: (name: string) => string | null;
  /**
   * Seals `value` under `name` in the secret store: the revision it landed at (an unanswered seal this node
   * reads landed counts); an ApiError when refused; a bus error when its outcome is unknown.
   */
  readonly seal: (name: string, value: string, actor: Actor) => Promise<number>;
  /**
   * Puts `name` back to `before` (null: removes it), a compare-and-set on `revision` (the caller's own
   * seal): false when a later write under the name stands, which is then kept.
   */
  readonly putBack: (name: string, before: string | null, actor: Actor, revision: number) => Promise<boolean>;
  /** Removes `name` from the secret store; true when it was there. */
  readonly unseal: (name: string, actor: Actor) => Promise<boolean>;
  /** The variable the public base URL is read from (`SVC_PUBLIC_BASE_URL`). */
  readonly publicBaseReference: string;
  /** The code host's web location (`SVC_CODEHOST_A_WEB_URL`): install links in the codehost-a roster. */
  readonly codehostAWebUrl?: string;
  readonly writeTimeoutMs?: number;
}

export interface SetupRouteDeps extends SetupConfigDeps {
  readonly auth: AuthSettings;
  readonly nodeId: string;
  /** True when Tier A lists a keyring: without one every route that seals answers 503 `no_keyring`. */
  readonly hasKeyring: boolean;
  /** Sends one command to an integration actor (`svc.cmd.integration.<verb>`) and reads its reply. */
  readonly command: (verb: IntegrationVerb, body: IntegrationCommand) => Promise<IntegrationReply>;
  readonly runs: PassRuns;
}
