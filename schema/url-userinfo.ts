/**
 * `text` without the userinfo of any URL in it (`nats://user:pass@host`, `http://admin:pw@node`): a URL
 * given by an operator may carry a credential, and what quotes it (an error, a log line, a CLI message)
 * ends up in terminals, CI logs and tickets.
 *
 * A password may hold `@`, `#`, `?` or a space written as is, so the userinfo runs to the last `@` before
 * the URL's path (the first `/`) or the end of the line, never to the first `@` (a `/` in a password must be
 * written `%2F`, as in any URL). It errs toward hiding: an `@` later on the same line after a URL with no
 * path takes the text before it too.
 */
export const withoutUserinfo = (text: string): string =>
  text.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^/\r\n]*@/gi, '$1');
