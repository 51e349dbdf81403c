import t from 'tap';
import { withoutUserinfo } from '../../schema/index.js';

t.test('URLs in a text lose their userinfo and nothing else', async (t) => {
  t.equal(
    withoutUserinfo('cannot reach http://admin:Passw0rd@127.0.0.1:1/x (connect ECONNREFUSED)'),
    'cannot reach http://127.0.0.1:1/x (connect ECONNREFUSED)',
  );
  t.equal(withoutUserinfo('nats://u:p@a:4222,nats://tok@b:4222'), 'nats://a:4222,nats://b:4222');
  t.equal(
    withoutUserinfo('mail a@b.example about http://host/p@q'),
    'mail a@b.example about http://host/p@q',
  );
});

t.test('a password holding @ # ? or a space is removed whole', async (t) => {
  for (const password of ['p@ss', 'p#ss', 'p?ss', 'p ss', 'a@b#c?d e@f'])
    for (const [url, shown] of [
      [`http://admin:${password}@127.0.0.1:1`, 'http://127.0.0.1:1'],
      [`ws://admin:${password}@node.example/ws/stream`, 'ws://node.example/ws/stream'],
      [`nats://tok:${password}@a:4222,nats://b:4222`, 'nats://a:4222,nats://b:4222'],
    ])
      t.equal(
        withoutUserinfo(`svc: cannot reach ${url} (connect ECONNREFUSED 127.0.0.1:1)\nnext`),
        `svc: cannot reach ${shown} (connect ECONNREFUSED 127.0.0.1:1)\nnext`,
        JSON.stringify(password),
      );
});
