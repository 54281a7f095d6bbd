import pino, { type Logger } from 'pino';

export type { Logger };

/**
 * Structured JSON logs. Secrets that could ride along in objects we log are redacted by path.
 *
 * Writes are synchronous: with pino's default asynchronous stdout, a process whose reader is gone
 * (the dev launcher was SIGKILLed, or `| head` exited) hangs for ever at exit, because the final
 * flushSync retries EPIPE in a loop. A synchronous destination sees EPIPE at once and goes quiet.
 */
export function createLogger(name: string, level: string): Logger {
  return pino(
    {
      name,
      level,
      base: { proc: name, pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers.cookie',
          'res.headers["set-cookie"]',
          '*.password',
          '*.signature',
          '*.access_token',
          '*.refresh_token',
          '*.api_key',
          '*.secret',
        ],
        censor: '[redacted]',
      },
    },
    pino.destination({ dest: 1, sync: true }),
  );
}
