/**
 * One Redis connection that does one thing: `XRANGE key <id> + COUNT n`, the stream reader's read
 * while events flow (stream-reader.ts). Everything else the reader does (the blocking XREAD, loss
 * checks, positions) stays on its ioredis connection.
 *
 * Why a connection of its own: at a steady flow a ws process reads about 40 times a second whether
 * or not any of its clients wants the events, and on the benchmark VM ioredis spent about 36% of
 * that fixed cost on this one command (sending it, and its RESP decoder, which keeps its parse
 * state in WeakMaps: ~0.9 µs per value, 11 values per stream entry). That cost is shared by every
 * delivery, so it weighs most on processes whose clients hold filters. The reply's shape
 * is known here (an array of [id, [field, value, ...]]), so decoding it is a short loop.
 *
 * What it does and does not do, so that the reader can rely on it:
 * - RESP2 only; `redis:` and `rediss:` URLs (TLS with Node's default verification, as ioredis
 *   does for `rediss:`), the URL's user and password (AUTH) and database (SELECT), and
 *   `CLIENT SETNAME <name>` so the connection shows in CLIENT LIST.
 * - One command in flight at a time (the reader awaits each read). Connects lazily, on the first
 *   read after a failure; no retries of its own: any error (connection refused or closed, an
 *   error reply, no reply within `timeoutMs`) closes the connection and rejects the read, and the
 *   reader then makes that read through ioredis, whose reconnect and retry rules apply.
 */
import net from 'node:net';
import tls from 'node:tls';

type RangeEntry = [id: string, fields: string[]];

const CRLF = Buffer.from('\r\n');

/** A RESP2 command as bytes (an array of bulk strings). */
export function encodeCommand(args: readonly string[]): Buffer {
  let out = `*${args.length}\r\n`;
  for (const a of args) out += `$${Buffer.byteLength(a)}\r\n${a}\r\n`;
  return Buffer.from(out);
}

/** A reply Redis answered with an error (`-ERR ...`). */
export class RangeReplyError extends Error {}

type Value = string | number | null | Value[] | RangeReplyError;

/**
 * Parses one RESP2 value from `buf` at `at`: [value, next offset], or null when `buf` does not yet
 * hold all of it. Simple strings, errors, integers, bulk strings (UTF-8) and arrays (nested).
 */
export function parseValue(buf: Buffer, at: number): [Value, number] | null {
  if (at >= buf.length) return null;
  const eol = buf.indexOf(CRLF, at + 1);
  if (eol < 0) return null;
  const type = buf[at];
  const head = buf.toString('latin1', at + 1, eol);
  const next = eol + 2;
  switch (type) {
    case 0x2b: // +
      return [head, next];
    case 0x2d: // -
      return [new RangeReplyError(buf.toString('utf8', at + 1, eol)), next];
    case 0x3a: // :
      return [Number(head), next];
    case 0x24: {
      // $
      const len = Number(head);
      if (len < 0) return [null, next];
      if (next + len + 2 > buf.length) return null;
      return [buf.toString('utf8', next, next + len), next + len + 2];
    }
    case 0x2a: {
      // *
      const n = Number(head);
      if (n < 0) return [null, next];
      const items: Value[] = new Array<Value>(n);
      let pos = next;
      for (let i = 0; i < n; i++) {
        const got = parseValue(buf, pos);
        if (got === null) return null;
        items[i] = got[0];
        pos = got[1];
      }
      return [items, pos];
    }
    default:
      // Not a reply: the bytes are not RESP2 (the caller drops the connection).
      throw new Error(`unexpected RESP type byte ${type}`);
  }
}

interface Pending {
  /** Replies still expected (handshake replies first, the XRANGE reply last). */
  left: number;
  resolve(entries: RangeEntry[]): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

export class RangeConnection {
  private socket: net.Socket | null = null;
  private buf: Buffer = Buffer.alloc(0);
  private pending: Pending | null = null;
  private closed = false;
  private readonly target: { host: string; port: number; tls: boolean; handshake: string[][] };

  private readonly timeoutMs: number;
  private readonly tlsOptions: tls.ConnectionOptions;

  /** `tls`: extra options for `rediss:` (e.g. a `ca`); `timeoutMs`: how long a read waits for its reply. */
  constructor(
    url: string,
    readonly name: string,
    opts: { timeoutMs?: number; tls?: tls.ConnectionOptions } = {},
  ) {
    this.timeoutMs = opts.timeoutMs ?? 5000;
    this.tlsOptions = opts.tls ?? {};
    const u = new URL(url);
    const handshake: string[][] = [];
    const password = decodeURIComponent(u.password);
    const user = decodeURIComponent(u.username);
    if (password) handshake.push(user ? ['AUTH', user, password] : ['AUTH', password]);
    const db = u.pathname.replace(/^\//, '');
    if (db && db !== '0') handshake.push(['SELECT', db]);
    handshake.push(['CLIENT', 'SETNAME', name]);
    this.target = { host: u.hostname.replace(/^\[|\]$/g, ''), port: Number(u.port || 6379), tls: u.protocol === 'rediss:', handshake };
  }

  /** The entries from `start` (inclusive) on, at most `count`. */
  xrange(key: string, start: string, count: number): Promise<RangeEntry[]> {
    if (this.closed) return Promise.reject(new Error('range connection closed'));
    if (this.pending) return Promise.reject(new Error('a range read is already in flight'));
    const fresh = this.socket === null;
    const socket = this.socket ?? this.connect();
    const commands = fresh ? [...this.target.handshake, ['XRANGE', key, start, '+', 'COUNT', String(count)]] : [['XRANGE', key, start, '+', 'COUNT', String(count)]];
    return new Promise<RangeEntry[]>((resolve, reject) => {
      const timer = setTimeout(() => this.fail(new Error(`no reply to XRANGE within ${this.timeoutMs} ms`)), this.timeoutMs);
      this.pending = { left: commands.length, resolve, reject, timer };
      socket.write(commands.length === 1 ? encodeCommand(commands[0]) : Buffer.concat(commands.map(encodeCommand)));
    });
  }

  close(): void {
    this.closed = true;
    this.fail(new Error('range connection closed'));
  }

  private connect(): net.Socket {
    const { host, port } = this.target;
    const socket = this.target.tls ? tls.connect({ ...this.tlsOptions, host, port, servername: net.isIP(host) ? undefined : host }) : net.connect({ host, port });
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(socket, chunk));
    socket.on('error', (err) => this.drop(socket, err));
    socket.on('close', () => this.drop(socket, new Error('range connection closed by peer')));
    this.socket = socket;
    this.buf = Buffer.alloc(0);
    return socket;
  }

  private onData(socket: net.Socket, chunk: Buffer): void {
    if (socket !== this.socket) return;
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    let at = 0;
    while (this.pending) {
      let got: [Value, number] | null;
      try {
        got = parseValue(this.buf, at);
      } catch (err) {
        return this.fail(err as Error);
      }
      if (got === null) break;
      at = got[1];
      const [value] = got;
      if (value instanceof RangeReplyError) return this.fail(value);
      if (--this.pending.left > 0) continue;
      const p = this.pending;
      this.pending = null;
      clearTimeout(p.timer);
      if (!Array.isArray(value)) return this.fail(new Error('XRANGE reply is not an array'));
      p.resolve(value as RangeEntry[]);
    }
    this.buf = at >= this.buf.length ? Buffer.alloc(0) : this.buf.subarray(at);
    if (!this.pending && this.buf.length > 0) this.fail(new Error('unexpected bytes from Redis'));
  }

  private drop(socket: net.Socket, err: Error): void {
    if (socket === this.socket) this.fail(err);
  }

  /** Closes the connection (the next read opens a new one) and rejects the read in flight. */
  private fail(err: Error): void {
    const socket = this.socket;
    this.socket = null;
    this.buf = Buffer.alloc(0);
    socket?.destroy();
    const p = this.pending;
    this.pending = null;
    if (p) {
      clearTimeout(p.timer);
      p.reject(err);
    }
  }
}
