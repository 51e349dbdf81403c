import t from 'tap';
import { createActor, fromPromise, toPromise } from 'xstate';
import {
  configWriteMachine,
  type ActivateInput,
  type ActivateOutput,
  type Validation,
  type WriteInput,
} from '../../actors/config/config-write.machine.js';
import type { ConfigWrite, ConfigWriteReply, RevisionRecord } from '../../schema/index.js';
import { aConfigWrite } from './fixtures/config-write.js';

const A = '00000000-0000-4000-8000-00000000000a';
const B = '00000000-0000-4000-8000-00000000000b';
const NEW = '00000000-0000-4000-8000-0000000000ff';
const now = '2026-11-22T12:00:00.000Z';

const command = (over: Partial<ConfigWrite> = {}): ConfigWrite =>
  aConfigWrite({ name: 'Acme' }, A, { summary: 'rename', ...over });
const activeA = {
  pointer: { revision_id: A, parent_revision_id: null, epoch: 4, activated_at: now },
  storeRevision: 17,
};
const valid: Validation = {
  valid: true,
  problems: [],
  warnings: [{ kind: 'admission' }],
  derived: { seats: [] },
  document: { name: 'Acme' },
};

interface Effects {
  stored: RevisionRecord[];
  activations: ActivateInput[];
}

/** given a write and the live pointer, when the machine runs, then its reply and effects. */
async function run(
  input: Partial<WriteInput> & { command: ConfigWrite },
  opts: { validation?: Validation; activate?: ActivateOutput; documents?: Record<string, unknown> } = {},
): Promise<{ reply: ConfigWriteReply; effects: Effects }> {
  const effects: Effects = { stored: [], activations: [] };
  const machine = configWriteMachine.provide({
    actors: {
      validate: fromPromise<Validation, ConfigWrite>(async () => opts.validation ?? valid),
      storeRevision: fromPromise<void, RevisionRecord>(async ({ input }) => {
        effects.stored.push(input);
      }),
      activate: fromPromise<ActivateOutput, ActivateInput>(async ({ input }) => {
        effects.activations.push(input);
        return opts.activate ?? { won: true };
      }),
      openRevision: fromPromise<unknown, string>(async ({ input }) => {
        if (!opts.documents || !(input in opts.documents)) throw new Error(`no revision ${input}`);
        return opts.documents[input];
      }),
    },
  });
  const actor = createActor(machine, { input: { active: activeA, revisionId: NEW, now, ...input } }).start();
  const reply = await toPromise(actor);
  return { reply, effects };
}

t.test(
  'a valid write on the active revision stores, activates at the next epoch and answers its id',
  async (t) => {
    const { reply, effects } = await run({ command: command() });
    t.match(reply, { outcome: 'stored', revision_id: NEW, epoch: 5, warnings: [{ kind: 'admission' }] });
    t.match(effects.stored, [
      {
        revision_id: NEW,
        parent_revision_id: A,
        created_by: 'ops',
        summary: 'rename',
        payload: { name: 'Acme' },
      },
    ]);
    t.match(effects.activations, [
      { pointer: { revision_id: NEW, parent_revision_id: A, epoch: 5 }, expectedStoreRevision: 17 },
    ]);
  },
);

t.test('the first write activates epoch 1 with a create (expected store revision 0)', async (t) => {
  const { reply, effects } = await run({ command: command({ basis_revision_id: null }), active: null });
  t.match(reply, { outcome: 'stored', epoch: 1 });
  t.match(effects.activations, [{ expectedStoreRevision: 0, pointer: { parent_revision_id: null } }]);
});

t.test('a lost compare-and-set keeps the revision stored inactive and answers 409 naming it', async (t) => {
  const { reply, effects } = await run(
    { command: command() },
    { activate: { won: false, activeRevisionId: B } },
  );
  t.match(reply, { outcome: 'refused', error: 'revision_advanced', status: 409, stored_revision_id: NEW });
  t.equal(effects.stored.length, 1);
});

t.test('an invalid document is refused with its problems and stores nothing', async (t) => {
  const bad: Validation = {
    valid: false,
    problems: [{ path: 'name', kind: 'missing' }],
    warnings: [],
    derived: null,
    document: null,
  };
  const { reply, effects } = await run({ command: command() }, { validation: bad });
  t.match(reply, {
    outcome: 'refused',
    error: 'validation_error',
    status: 400,
    problems: [{ path: 'name' }],
  });
  t.same(effects, { stored: [], activations: [] });
});

t.test('a dry run answers valid with the base revision and stores nothing', async (t) => {
  const { reply, effects } = await run({ command: command({ dry_run: true }) });
  t.match(reply, { outcome: 'valid', base_revision_id: A, derived: { seats: [] } });
  t.same(effects, { stored: [], activations: [] });
  const none = await run({ command: command({ dry_run: true, basis_revision_id: null }), active: null });
  t.match(none.reply, { outcome: 'valid', base_revision_id: '' });
});

t.test('preconditions refuse before validation, in the spec order', async (t) => {
  const cases: Array<[Partial<WriteInput> & { command: ConfigWrite }, string, number]> = [
    [
      { command: command({ precondition: { if_match: A, if_none_match_any: true } }) },
      'conflicting_preconditions',
      400,
    ],
    [{ command: command({ precondition: { if_none_match_any: true } }) }, 'already_configured', 412],
    [
      { command: command({ precondition: { if_match: '*', if_none_match_any: false } }), active: null },
      'no_active_revision',
      412,
    ],
    [
      { command: command({ precondition: { if_match: A, if_none_match_any: false } }), active: null },
      'no_active_revision',
      412,
    ],
    [
      {
        command: command({ dry_run: true, precondition: { if_match: B, if_none_match_any: false } }),
      },
      'revision_advanced',
      409,
    ],
  ];
  for (const [input, error, status] of cases) {
    const { reply, effects } = await run(input);
    t.match(reply, { outcome: 'refused', error, status }, error);
    t.same(effects, { stored: [], activations: [] });
  }
  // A dry run stores nothing, so its refusal does not claim a stored revision.
  const dry = await run(cases[cases.length - 1]![0]);
  t.notMatch(JSON.stringify(dry.reply), /stored inactive/);
  t.match(JSON.stringify(dry.reply), /would be refused/);
});

t.test('a valid write on a stale basis is stored inactive and answers 409 naming it', async (t) => {
  const cases: Array<[ConfigWrite, RegExp]> = [
    [command({ precondition: { if_match: B, if_none_match_any: false } }), /If-Match .*b is not the active/],
    [command({ basis_revision_id: B }), /read from .*b; .*a is active now/],
  ];
  for (const [cmd, detail] of cases) {
    const { reply, effects } = await run({ command: cmd });
    t.match(reply, {
      outcome: 'refused',
      error: 'revision_advanced',
      status: 409,
      stored_revision_id: NEW,
      detail,
    });
    t.match(effects.stored, [{ revision_id: NEW, parent_revision_id: cmd.basis_revision_id }]);
    t.same(effects.activations, [], 'nothing is activated');
  }
  const invalid = await run(
    { command: command({ basis_revision_id: B }) },
    {
      validation: { valid: false, problems: [{ path: 'name' }], warnings: [], derived: null, document: null },
    },
  );
  t.match(invalid.reply, { error: 'validation_error' }, 'an invalid stale write is refused for its problems');
  t.same(invalid.effects.stored, []);
});

t.test(
  'If-Match * proceeds when something is active; If-None-Match * proceeds when nothing is',
  async (t) => {
    t.match(
      (await run({ command: command({ precondition: { if_match: '*', if_none_match_any: false } }) })).reply,
      { outcome: 'stored' },
    );
    t.match(
      (
        await run({
          command: command({ basis_revision_id: null, precondition: { if_none_match_any: true } }),
          active: null,
        })
      ).reply,
      { outcome: 'stored', epoch: 1 },
    );
  },
);

t.test(
  'If-None-Match naming the active revision is decided by the writer against the pointer it compares-and-sets',
  async (t) => {
    for (const tags of [[A], [A.toUpperCase()], [B, A]]) {
      const { reply, effects } = await run({
        command: command({ precondition: { if_none_match_any: false, if_none_match: tags } }),
      });
      t.match(reply, { outcome: 'refused', error: 'already_configured', status: 412 }, tags.join(','));
      t.same(effects, { stored: [], activations: [] }, `${tags.join(',')}: nothing stored`);
    }
    const other = await run({
      command: command({ precondition: { if_none_match_any: false, if_none_match: [B, NEW] } }),
    });
    t.match(other.reply, { outcome: 'stored' }, 'a tag of no active revision proceeds');
  },
);

t.test(
  'a create-only write that loses the compare-and-set is 412 already_configured, naming the revision kept inactive',
  async (t) => {
    const { reply, effects } = await run(
      {
        command: command({ basis_revision_id: null, precondition: { if_none_match_any: true } }),
        active: null,
      },
      { activate: { won: false, activeRevisionId: B } },
    );
    t.match(reply, { outcome: 'refused', error: 'already_configured', status: 412, stored_revision_id: NEW });
    t.equal(effects.stored.length, 1);
    const tagged = await run(
      { command: command({ precondition: { if_none_match_any: false, if_none_match: [B] } }) },
      { activate: { won: false, activeRevisionId: B } },
    );
    t.match(
      tagged.reply,
      { error: 'already_configured', status: 412 },
      'a tag naming the revision that won is refused the same way',
    );
  },
);

t.test(
  'a create-only entity write that loses is 412 entity_exists when the revision it lost to holds the entry',
  async (t) => {
    const create = command({
      precondition: { if_none_match_any: false, if_entity_absent: { kind: 'mcp-servers', id: 'racer' } },
    });
    const holding = { name: 'Acme', mcp_servers: [{ name: 'racer', command: 'npx' }] };
    const lost = await run(
      { command: create },
      { activate: { won: false, activeRevisionId: B }, documents: { [B]: holding } },
    );
    t.match(
      lost.reply,
      { outcome: 'refused', error: 'entity_exists', status: 412, stored_revision_id: NEW },
      'lost the compare-and-set to a revision holding the entry',
    );
    const stale = await run(
      { command: create, active: { ...activeA, pointer: { ...activeA.pointer, revision_id: B } } },
      { documents: { [B]: holding } },
    );
    t.match(stale.reply, { error: 'entity_exists', status: 412 }, 'read a revision another write replaced');
    t.equal(stale.effects.activations.length, 0, 'a stale write is never activated');
    const other = await run(
      { command: create },
      { activate: { won: false, activeRevisionId: B }, documents: { [B]: { name: 'Acme' } } },
    );
    t.match(
      other.reply,
      { error: 'revision_advanced', status: 409 },
      'a winner without the entry: the lost race',
    );
    const unread = await run({ command: create }, { activate: { won: false, activeRevisionId: B } });
    t.match(
      unread.reply,
      { error: 'revision_advanced', status: 409 },
      'a winner it cannot read: the lost race',
    );
    const plain = await run(
      { command: command() },
      { activate: { won: false, activeRevisionId: B }, documents: { [B]: holding } },
    );
    t.match(
      plain.reply,
      { error: 'revision_advanced', status: 409 },
      'a plain write is not judged on the entry',
    );
  },
);
