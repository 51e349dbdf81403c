/** What the setup routes are given by the node's wiring (the secret store, the provisioning host). */
import type { Bus } from '../../../bus/index.js';
import type { ConfigState } from '../../../projections/index.js';
import type { LookupAnswer, PassMode, PassRun, RevisionRecord } from '../../../schema/index.js';
import type { AuthSettings } from '../../types.js';

/** A provisioning pass as the route asks for it; credentials arrive resolved and never leave the host. */
export interface PassRequest {
  readonly kind: string;
  readonly mode: PassMode;
  readonly actor: string;
  /** The kind's block with every `${VAR}` resolved (empty object when it has none). */
  readonly settings: Readonly<Record<string, unknown>>;
  /** Where third parties deliver for this kind, or null without a public base URL. */
  readonly publicUrl: string | null;
  /** Handles of the company's agent seats. */
  readonly agentSeats: readonly string[];
  /** Agent seats that already carry their own token for this kind (none is minted for them). */
  readonly seatsWithToken: readonly string[];
  /** Given only when minted seat credentials can be sealed: receives each one (never logged, never in the run). */
  readonly keep?: (seat: string, value: string) => void;
}

export interface PassHost {
  run(request: PassRequest): Promise<PassRun>;
  /** Passes this node remembers for `kind`, newest first, after the run `before` (exclusive). */
  list(kind: string, opts: { before?: string; limit: number }): { runs: PassRun[]; more: boolean };
  get(kind: string, id: string): PassRun | null;
}

export interface SetupRouteDeps {
  readonly state: () => ConfigState;
  /** Opens a stored payload (decrypts a sealed one); throws when this node cannot. */
  readonly openPayload: (record: RevisionRecord) => unknown;
  readonly untilEpoch: (epoch: number, timeoutMs: number) => Promise<boolean>;
  readonly bus: Bus;
  readonly auth: AuthSettings;
  readonly nodeId: string;
  /** True when Tier A lists a keyring: without one every route that seals answers 503 `no_keyring`. */
  readonly hasKeyring: boolean;
  /** `${NAME}` resolution: the secret store first, then the environment; null when unanswered. */
  readonly lookup: (name: string) => Promise<LookupAnswer | null>;
  /** Seals `value` under `name` in the secret store; throws an ApiError when the store refuses. */
  readonly seal: (name: string, value: string, actor: string) => Promise<void>;
  /** Removes `name` from the secret store; true when it was there. */
  readonly unseal: (name: string, actor: string) => Promise<boolean>;
  readonly passes: PassHost;
  /** The variable the public base URL is read from (`SVC_PUBLIC_BASE_URL`). */
  readonly publicBaseReference: string;
  readonly writeTimeoutMs?: number;
}
