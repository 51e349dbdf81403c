/**
 * `/access`, `/viewer` and `/credential-pool` of one node, read from the active document (opened with
 * the node's keyring) and the Tier A auth settings.
 */
import { openDocument } from '../bus/index.js';
import { accessRoutes, type AuthSettings, type RouteDef } from '../http/index.js';
import { activeRevision } from '../projections/index.js';
import { credentialPoolFromDocument, type CredentialPoolSnapshot } from '../schema/index.js';
import type { Configuration } from './config-wiring.js';
import type { Secrets } from './secrets-wiring.js';

export function accessRoutesFor(opts: {
  auth: AuthSettings;
  configuration: Configuration;
  secrets: Secrets;
  /** The live pool's `snapshot` once a node runs one; until then the document's keys, without cooldowns. */
  credentialPool?: () => CredentialPoolSnapshot;
  /** The write tools `/operator/act` serves (`/viewer`'s `acts`); none where that route is absent. */
  operatorActs?: () => readonly string[];
}): RouteDef[] {
  const activeDocument = (): unknown => {
    const record = activeRevision(opts.configuration.view.state);
    if (!record) return null;
    try {
      return openDocument(opts.secrets.keyring, record.payload, record.revision_id);
    } catch {
      // Boot refuses an active revision this node cannot open; a later one it cannot open reads as none.
      return null;
    }
  };
  return accessRoutes({
    auth: opts.auth,
    activeDocument,
    resolve: opts.secrets.resolve,
    credentialPool: opts.credentialPool ?? (() => credentialPoolFromDocument(activeDocument())),
    ...(opts.operatorActs ? { operatorActs: opts.operatorActs } : {}),
  });
}
