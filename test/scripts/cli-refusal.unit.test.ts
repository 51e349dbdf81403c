import t from 'tap';
import { describeRefusal } from '../../scripts/cli-refusal.js';

t.test('a refusal without an error code names the command that met it, not always svc config', async (t) => {
  for (const command of ['secrets', 'fleet', 'work', 'pages'])
    t.equal(
      describeRefusal(502, '<html>Bad Gateway</html>', command),
      `svc ${command}: HTTP 502 without an error code, so not the node's own answer: check that --url / $SVC_URL is the node's api.host:api.port, or the proxy in front of it (a write's outcome is unknown)\n`,
    );
  t.match(describeRefusal(502, 'Bad Gateway'), /^svc config: HTTP 502/);
});

t.test(
  'a coded refusal reads the command, status, code, detail and each problem by path and line',
  async (t) => {
    const text = JSON.stringify({
      error: 'validation_error',
      detail: 'the document is invalid',
      problems: [{ path: 'units[0].name', line: 4, message: 'required' }, { message: 'no units' }],
    });
    t.equal(
      describeRefusal(400, text, 'work'),
      'svc work: 400 validation_error: the document is invalid\n  units[0].name (line 4): required\n  (document): no units\n',
    );
  },
);

t.test('a problem with a column (a JSON syntax error) reads line and column', async (t) => {
  const text = JSON.stringify({
    error: 'invalid_body',
    detail: 'The body is not a readable JSON document.',
    problems: [
      { path: '', line: 3, column: 7, message: 'JSON: not parseable: expected `,` or `}` after a member' },
    ],
  });
  t.equal(
    describeRefusal(400, text),
    'svc config: 400 invalid_body: The body is not a readable JSON document.\n  (document) (line 3, column 7): JSON: not parseable: expected `,` or `}` after a member\n',
  );
});
