/**
 * `text` without the userinfo of any URL in it (`nats://user:pass@host`, `http://admin:pw@node`): a URL
 * given by an operator may carry a credential, and what quotes it (an error, a log line, a CLI message)
 * ends up in terminals, CI logs and tickets.
 */
export const withoutUserinfo = (text: string): string =>
  text.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^/?#\s@]*@/gi, '$1');
