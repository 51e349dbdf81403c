/**
 * `Allow` on the page routes names the methods the target supports (RFC 9110 15.5.6): `/pages/{id}` is
 * read, edited and deleted but takes no POST, so its 405 leaves POST out and a POST there is itself 405
 * with that list (not 404); `/pages/{id}/comments` takes the comment POST, and — being also a page
 * reference `CONTAINER/comments` — GET, PATCH and DELETE.
 */
import t from 'tap';
import { startPagesNode } from './fixtures/pages-node.js';

t.test('Allow on /pages/{id} lists only the methods that serve it, and POST there is 405', async (t) => {
  const n = await startPagesNode(t);
  const made = await n.call('POST', '/pages', { body: { container: 'ENG', title: 'Runbook', body: 'b' } });
  const id = made.json['page_id'] as string;

  const put = await n.call('PUT', `/pages/${id}`, { body: { body: 'x' } });
  t.equal(put.status, 405);
  t.equal(put.json['error'], 'method_not_allowed');
  t.equal(put.headers.get('allow'), 'GET, PATCH, DELETE', 'no POST in Allow');

  const post = await n.call('POST', `/pages/${id}`, { body: { body: 'x' } });
  t.equal(post.status, 405, 'a POST to a page is not allowed there');
  t.equal(post.json['error'], 'method_not_allowed');
  t.equal(post.headers.get('allow'), 'GET, PATCH, DELETE');

  const options = await n.call('OPTIONS', `/pages/${id}`);
  t.equal(options.status, 204);
  t.equal(options.headers.get('allow'), 'GET, PATCH, DELETE');

  const onComments = await n.call('PUT', `/pages/${id}/comments`, { body: { body: 'x' } });
  t.equal(onComments.status, 405);
  t.equal(
    onComments.headers.get('allow'),
    'GET, POST, PATCH, DELETE',
    'the comment POST serves /pages/{id}/comments (and the page routes serve it as a CONTAINER/Title)',
  );
  const comment = await n.call('POST', `/pages/${id}/comments`, { body: { body: 'Looks right' } });
  t.equal(comment.status, 201, 'the comment POST still serves');
});
