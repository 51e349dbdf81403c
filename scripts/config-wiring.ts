/**
 * The configuration subsystem of one node: the read model (follows SVC_CONFIG and the active
 * pointer), the config writer (answers write commands), the applier (applies each activation in
 * order) and the `/config` routes over them.
 */
import type { Logger } from 'pino';
import {
  createApplier,
  startConfigWriter,
  startRevisions,
  type ConfigWriter,
  type NodeHost,
  type Revisions,
  type SubsystemApplier,
} from '../actors/index.js';
import {
  type Bus,
  type Kv,
  keyringFrom,
  openDocument,
  sealDocument,
  heldDocumentKeyId,
  SealError,
} from '../bus/index.js';
import {
  configQuestions,
  configRoutes,
  type AuthSettings,
  type Question,
  type RouteDef,
} from '../http/index.js';
import {
  activeRevision,
  configAudit,
  readRevision,
  splitRecord,
  type ConfigView,
} from '../projections/index.js';
import { followNodeConfig } from './config-follow.js';
import {
  unresolvedReferences,
  unschedulableReferences,
  validateCompany,
  type Resolver,
  type RevisionRecord,
  type TierA,
  type ValidationMode,
} from '../schema/index.js';

/** The active revision a write is judged against (schema/company/ratchet.ts). */
type RatchetBasis = NonNullable<Parameters<typeof validateCompany>[1]['active']>;

export interface Configuration {
  readonly view: ConfigView;
  /** Every revision's lifecycle (stored → active → superseded, each node's apply), replayed from SVC_CONFIG. */
  readonly revisions: Revisions;
  readonly coord: Kv;
  routes(auth: AuthSettings): RouteDef[];
  /** Named questions this subsystem answers on `/query/{what}`. */
  readonly questions: ReadonlyMap<string, Question>;
  /** Applies whatever is active now (boot) — resolves when done. */
  applyActive(): Promise<void>;
  /**
   * The drain's wait for an apply in progress (ops/config.md, "an apply in progress at a stop"): no further apply starts; the one
   * running gets `ms` to end and be recorded, else it is logged as cut. False when it was cut.
   */
  finishApply(ms: number): Promise<boolean>;
  stop(): Promise<void>;
}

export async function startConfiguration(opts: {
  bus: Bus;
  coord: Kv;
  node: NodeHost;
  config: TierA;
  logger: Logger;
  subsystems?: readonly SubsystemApplier[];
  /** `${VAR}` resolution (store, then environment): a write naming one that resolves to nothing is warned. */
  resolve?: Resolver;
}): Promise<Configuration> {
  const { bus, coord, node, config, logger } = opts;
  // These rules read only this node's Tier A: said once at start, not first met on a reload.
  const unrunnable = tierAProblems(config, null);
  if (unrunnable.length > 0)
    logger.warn(
      { event: 'tier_a_unrunnable', problems: unrunnable.map((p) => p['message']) },
      'this node refuses reload and revert (write rule 9) until its Tier A is fixed',
    );
  // With a keyring every revision is stored sealed; reads open then redact (spec "Authentication" 10).
  const keyring = keyringFrom(config.secrets);
  const openPayload = (record: RevisionRecord): unknown =>
    openDocument(keyring, record.payload, record.revision_id);
  const view = await followNodeConfig(bus, coord, logger);
  // An active revision this node cannot open (its key is missing) must not be served: refuse to boot.
  const active = activeRevision(view.state);
  if (active) {
    try {
      openPayload(active);
    } catch (error) {
      await view.stop();
      throw new Error(
        `the active revision ${active.revision_id} cannot be opened: ${unopenable(error, active, keyring)}`,
        {
          cause: error,
        },
      );
    }
  }
  // The revision actors: only each stored record's metadata is read, its document skipped unparsed.
  const revisions = await startRevisions({
    bus,
    logger: logger.child({ component: 'config.revisions' }),
    storedHead: (data) => splitRecord(data)?.head ?? null,
  });
  // The active revision a write is judged against (ratcheting, ops/config.md): its document and its own
  // problems, found once per revision and mode. None when nothing is active or this node cannot open it.
  let basisMemo: { key: string; basis: RatchetBasis } | null = null;
  const ratchetBasis = (mode: ValidationMode): RatchetBasis | null => {
    const record = activeRevision(view.state);
    if (!record) return null;
    const key = `${record.revision_id}\u0000${mode}`;
    if (basisMemo?.key === key) return basisMemo.basis;
    let document: unknown;
    try {
      document = openPayload(record);
    } catch {
      return null;
    }
    const basis = { document, problems: validateCompany(document, { mode }).problems };
    basisMemo = { key, basis };
    return basis;
  };
  const writer: ConfigWriter = startConfigWriter({
    bus,
    coord,
    ...(keyring
      ? {
          storedPayload: (document: unknown, revisionId: string) =>
            sealDocument(keyring, document, revisionId),
        }
      : {}),
    logger: logger.child({ component: 'config.writer' }),
    // The revision a create-only entity write lost to was stored before it won: wait for the view to list it.
    openRevision: async (revisionId) => {
      await view.until((state) => state.revisions.has(revisionId), 5_000);
      const record = await readRevision(view.state, revisionId);
      if (!record) throw new Error(`revision ${revisionId} is not in this node's view`);
      return openPayload(record);
    },
    validate: (command) => {
      const active = ratchetBasis(command.rules);
      const result = validateCompany(command.document, {
        mode: command.rules,
        ...(active ? { active } : {}),
        ...(command.yaml_text !== undefined ? { yamlText: command.yaml_text } : {}),
        ...(command.carried ? { carried: command.carried } : {}),
      });
      return {
        valid: result.valid,
        problems: result.problems.map((problem) => ({ ...problem })),
        warnings: [
          ...result.warnings,
          ...(opts.resolve && result.valid
            ? [
                ...unresolvedReferences(command.document, opts.resolve, command.yaml_text, keyring !== null),
                ...unschedulableReferences(command.document, opts.resolve),
              ]
            : []),
        ].map((warning) => ({ ...warning })),
        derived: result.derived,
        document: result.document ?? command.document,
      };
    },
  });
  const applier = createApplier({
    bus,
    openPayload,
    ...(opts.resolve ? { resolve: opts.resolve } : {}),
    nodeId: config.node.id,
    subsystems: opts.subsystems ?? [],
    node,
    logger: logger.child({ component: 'config.apply' }),
    source: {
      active: () => view.state.active,
      revision: (id) => readRevision(view.state, id),
      untilStored: (id, timeoutMs) => view.until((state) => state.revisions.has(id), timeoutMs),
    },
  });
  // The apply waits for this node's writes in flight to answer (for at most 2 s), then one turn of the
  // event loop: a write's read-your-writes answer goes out before the apply it caused (the view sees the
  // activation at the pointer's compare-and-set, while the writer still has its announcement to store).
  let listening = true;
  const onActivated = view.onActivated(() => {
    void writer.answered(2_000).then(() =>
      setImmediate(() => {
        if (listening) void applier.reconcile();
      }),
    );
  });
  const stopListening = (): void => {
    listening = false;
    onActivated();
  };

  return {
    view,
    revisions,
    coord,
    routes: (auth) =>
      configRoutes({
        state: () => view.state,
        openPayload,
        untilEpoch: (epoch, timeoutMs) =>
          view.until(
            (state) => (state.active?.epoch ?? 0) >= epoch && activeRevision(state) !== null,
            timeoutMs,
          ),
        bus,
        auth,
        tierAProblems: (document) => tierAProblems(config, document),
      }),
    questions: new Map<string, Question>([
      // Revision metadata without payloads, newest first (spec: the `config_audit` question).
      [
        'config_audit',
        { guarded: true, answer: (params) => configAudit(view.state, params.get('limit') ?? undefined) },
      ],
      // The dashboard's config room: the document, a diff between any two revisions, the entity views.
      ...configQuestions({ state: () => view.state, openPayload }),
    ]),
    applyActive: () => applier.reconcile(),
    finishApply: (ms) => applier.stop(ms),
    async stop() {
      stopListening();
      await writer.stop();
      await revisions.stop();
      await view.stop();
    },
  };
}

/** Rules a runnable document must meet on this node's own Tier A (write rule 9). */
function tierAProblems(config: TierA, _document: unknown): Array<Record<string, unknown>> {
  const problems: Array<Record<string, unknown>> = [];
  const native = config.tracker.backend === 'native' || config.knowledge.backend === 'native';
  if (native && !config.stream.store_dir) {
    problems.push({
      path: 'stream.store_dir',
      segments: ['stream', 'store_dir'],
      kind: 'missing',
      message:
        'a native tracker or knowledge base needs a persistent stream store on this node (Tier A stream.store_dir)',
    });
  }
  return problems;
}

/**
 * Why the active revision does not open, and the fix: a key id the keyring lacks is added back; a key id it
 * holds with other material (a regenerated key, a `${VAR}` now naming another key) gets its old material back.
 */
function unopenable(error: unknown, record: RevisionRecord, keyring: ReturnType<typeof keyringFrom>): string {
  const why = error instanceof SealError ? error.message : String(error);
  const keyId = heldDocumentKeyId(keyring, record.payload);
  if (keyId !== null)
    return `it is sealed under key ${keyId}, and the material secrets.keys gives ${keyId} does not open it; set ${keyId}'s material back to the key it had when the revision was stored`;
  return `${why}; add that key to secrets.keys`;
}
