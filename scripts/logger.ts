/** The process logger: pino JSON on stdout; `debug: true` lowers the level. Credentials are redacted. */
import { pino, type Logger } from 'pino';

export function createLogger(opts: {
  debug: boolean;
  node: string;
  destination?: NodeJS.WritableStream;
}): Logger {
  return pino(
    {
      level: opts.debug ? 'debug' : 'info',
      base: { node: opts.node },
      // Belt and braces: nothing should log these, and if something does they never reach the sink.
      redact: {
        paths: [
          'authorization',
          'headers.authorization',
          '*.authorization',
          'token',
          '*.token',
          'auth_token',
        ],
        censor: '[redacted]',
      },
    },
    opts.destination ?? process.stdout,
  );
}
