import { Command, Redis, ReplyError, type RedisOptions } from 'ioredis';
import { BackendUnavailableError } from './errors/backend.js';

export type { Redis };

/** Default of `commandTimeoutMs` (config: REDIS_COMMAND_TIMEOUT_MS). */
const REDIS_COMMAND_TIMEOUT_MS = 5000;

type SendStream = Parameters<Redis['sendCommand']>[1];
/** Options of a client with ioredis's default (RESP2, "legacy") reply mapping, which we use throughout. */
type LegacyOptions = RedisOptions & { replyMapping?: 'legacy' };

/**
 * A `command` connection's time-out on each command, and what it does when Redis stops answering
 * while its connection stays up (a redis-server stopped with SIGSTOP, a hung host behind a live
 * TCP stack): ioredis then keeps the client `ready` and its own `commandTimeout` fails a command with
 * a plain `Error` that nothing but its text tells from a bug, so the API would answer 500.
 *
 * Here a command without a reply within `timeoutMs` fails with `BackendUnavailableError` (503), and
 * the connection counts as hung until Redis answers again: further commands fail at once instead
 * of each waiting out its own time-out (with auto-pipelining, a batch is not sent before the one
 * ahead of it is answered, so waits would add up batch after batch). One PING, sent when the
 * connection is found hung, notices the recovery: its reply, or any other reply, ends the state,
 * as does the connection closing or becoming ready again (while it is not ready, the client's
 * status tells the outage, and a time-out then does not mark it hung).
 */
class CommandConnection extends Redis {
  // Assigned after super() (a conditional super() allows no field initialisers); 0: not hung.
  private hungSince: number;
  private probing: boolean;
  private probes: WeakSet<Command>;
  private readonly timeoutMs: number;

  constructor(url: string | null, options: LegacyOptions, timeoutMs: number) {
    if (url === null) super(options);
    else super(url, options);
    this.hungSince = 0;
    this.probing = false;
    this.probes = new WeakSet();
    this.timeoutMs = timeoutMs;
    // A new connection starts unsuspected.
    const reset = () => {
      this.hungSince = 0;
    };
    this.on('close', reset);
    this.on('ready', reset);
  }

  /** True from a command's time-out until Redis answers again (or the connection closes). */
  get hung(): boolean {
    return this.hungSince !== 0;
  }

  override sendCommand(command: Command, stream?: SendStream): unknown {
    // The recovery PING passes even while hung (ioredis sends it again itself after a reconnect).
    if (this.probes.has(command)) return super.sendCommand(command, stream);
    if (this.hungSince && this.status === 'ready') {
      command.reject(this.unavailable(`Redis has not answered for ${Date.now() - this.hungSince} ms`));
      return command.promise;
    }
    const timer = setTimeout(() => {
      // Only a connected client can be hung; otherwise its status already says Redis is down.
      if (this.status === 'ready') {
        this.hungSince ||= Date.now();
        this.probe();
      }
      command.reject(this.unavailable(`no reply to ${command.name} within ${this.timeoutMs} ms`));
    }, this.timeoutMs);
    command.promise.then(
      () => this.answered(timer),
      (err: unknown) => (err instanceof ReplyError ? this.answered(timer) : clearTimeout(timer)),
    );
    return super.sendCommand(command, stream);
  }

  /** A reply came (a value or Redis's own error): Redis answers. */
  private answered(timer: NodeJS.Timeout) {
    clearTimeout(timer);
    this.hungSince = 0;
  }

  private probe() {
    if (this.probing) return;
    this.probing = true;
    const ping = new Command('ping', []);
    this.probes.add(ping);
    ping.promise.then(
      () => {
        this.probing = false;
        this.hungSince = 0;
      },
      () => {
        this.probing = false;
      },
    );
    super.sendCommand(ping);
  }

  private unavailable(why: string) {
    return new BackendUnavailableError('redis', new Error(why));
  }

  override duplicate(override?: Partial<RedisOptions>): Redis {
    const copy = new CommandConnection(null, { ...this.options, ...(override ?? {}) } as LegacyOptions, this.timeoutMs);
    copy.on('error', () => undefined);
    return copy;
  }
}

/** True when `redis` is a `command` connection that Redis has stopped answering (see CommandConnection). */
export function redisHung(redis: Redis): boolean {
  return redis instanceof CommandConnection && redis.hung;
}

/**
 * `command` connections fail fast while Redis is down or hung (the API answers 503 instead of
 * hanging; a command waits at most `commandTimeoutMs` for its reply); `blocking` connections
 * (BullMQ workers, stream readers) wait and retry forever, as BullMQ requires.
 *
 * `autoPipelining` (the web process's request path): commands issued during one turn of the event
 * loop, by all the requests in flight, go to Redis in one write and their replies come back in one
 * read. Under load that turns one write syscall per command (a fifth of the web process's CPU in the
 * feed benchmark) into one per loop turn. BullMQ is not given such a connection (QueueClient
 * duplicates it without the option): Bull users reported lost job data with auto-pipelining.
 */
export function createRedis(url: string, kind: 'command' | 'blocking', name: string, extra: { autoPipelining?: boolean; commandTimeoutMs?: number } = {}): Redis {
  const common: LegacyOptions = {
    connectionName: name,
    enableAutoPipelining: kind === 'command' && extra.autoPipelining === true,
    retryStrategy: (times) => Math.min(times * 100, 2000),
    lazyConnect: false,
  };
  const redis =
    kind === 'blocking'
      ? new Redis(url, { ...common, maxRetriesPerRequest: null, enableReadyCheck: true })
      : new CommandConnection(url, { ...common, maxRetriesPerRequest: 1, enableOfflineQueue: true, connectTimeout: 2000 }, extra.commandTimeoutMs ?? REDIS_COMMAND_TIMEOUT_MS);
  // Errors surface on the commands that fail; the connection's own error events are reconnect noise.
  redis.on('error', () => undefined);
  return redis;
}
