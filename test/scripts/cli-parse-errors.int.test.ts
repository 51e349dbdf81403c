/**
 * A flag the parser refuses (unknown, missing its value, a value where none is taken, a dash-led value, a
 * stray argument) is said in one line naming the flag, then the command's help pointer, exit 2: never the
 * parser's three-line text or its unclosed quote. An unknown flag is said with the flags the verb takes.
 */
import t from 'tap';
import { main } from '../../scripts/svc.js';

async function svc(args: string[]) {
  let err = '';
  const code = await main(args, {}, { write: () => true }, { write: (text: string) => (err += text) });
  return { code, err };
}

t.test('a flag the parser refuses is one line naming it, exit 2', async (t) => {
  for (const [args, line] of [
    [['events', 'list', '--limit'], 'svc: --limit needs a value'],
    [['secrets', 'list', '-c'], 'svc: --config needs a value'],
    [
      ['config', 'revisions', '--offset', '-1'],
      'svc: --offset needs a value (one that starts with a dash is written --offset=-X)',
    ],
    [
      ['events', 'list', '--bogus'],
      'svc: unknown flag --bogus (svc events list takes --limit, --category, --seat, --feed-only, --before-time, --before-id, --all, --url, --timeout, --config, --help; an argument that starts with a dash goes after --)',
    ],
    [
      ['work', 'list', '-x'],
      'svc: unknown flag -x (svc work list takes --project, --status, --assignee, --q, --limit, --cursor, --url, --timeout, --config, --help; an argument that starts with a dash goes after --)',
    ],
    // A flag another verb takes is not named as this one's.
    [
      ['events', 'tail', '--bogus'],
      'svc: unknown flag --bogus (svc events tail takes --category, --seat, --url, --timeout, --config, --help; an argument that starts with a dash goes after --)',
    ],
    // A command without verbs names its own flags.
    [
      ['replay', '--bogus'],
      'svc: unknown flag --bogus (svc replay takes --config, --stream, --from-seq, --since, --subject, --verify, --help)',
    ],
    [['events', 'list', '--feed-only=yes'], 'svc: --feed-only takes no value'],
    [['serve', 'extra'], 'svc: unexpected arguments: extra'],
  ] as const) {
    const run = await svc([...args]);
    t.equal(run.code, 2, args.join(' '));
    t.equal(run.err, `${line}\nRun 'svc ${args[0]} --help' for usage.\n`, args.join(' '));
  }
});
