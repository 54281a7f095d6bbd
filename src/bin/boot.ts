/**
 * What every process does the same way: load the configuration (exit 78 listing every bad key),
 * log JSON, log and exit on an uncaught exception, and shut down once on SIGTERM/SIGINT within
 * SHUTDOWN_TIMEOUT_MS.
 */
import { ConfigError, loadConfig, type Config } from '../platform/config.js';
import { createLogger, type Logger } from '../platform/logger.js';

export function boot(name: string): { config: Config; log: Logger } {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${name}: ${err.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    throw err;
  }
  const log = createLogger(name, config.LOG_LEVEL);
  process.on('uncaughtException', (err) => {
    log.fatal({ err }, 'uncaught exception');
    process.exit(1);
  });
  process.on('unhandledRejection', (err) => {
    log.fatal({ err }, 'unhandled rejection');
    process.exit(1);
  });
  return { config, log };
}

/** Run `close` once on SIGTERM/SIGINT (or when the launcher's pipe closes); force-exit after the timeout. */
export function onShutdown(config: Config, log: Logger, close: () => Promise<void>): void {
  let closing = false;
  const run = (reason: string) => {
    if (closing) return;
    closing = true;
    log.info({ reason }, 'shutting down');
    const timer = setTimeout(() => {
      log.error({ timeoutMs: config.SHUTDOWN_TIMEOUT_MS }, 'shutdown timed out; exiting');
      process.exit(1);
    }, config.SHUTDOWN_TIMEOUT_MS);
    timer.unref();
    close().then(
      () => {
        log.info('shut down cleanly');
        process.exit(0);
      },
      (err) => {
        log.error({ err }, 'error during shutdown');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => run('SIGTERM'));
  process.once('SIGINT', () => run('SIGINT'));
  if (config.EXIT_WITH_PARENT) {
    process.stdin.on('end', () => run('parent gone'));
    process.stdin.on('close', () => run('parent gone'));
    process.stdin.resume();
  }
}
