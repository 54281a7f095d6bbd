/**
 * The web process's side of the picture process (picture-child.ts): image work for uploads runs
 * there, at the lowest CPU priority, never in the web process, so however many expensive uploads
 * arrive, wallet sign-in, the feed and every other request keep their cores. The child is forked on
 * the first upload and kept; it is forked again after it exits. An operation that takes longer than
 * `timeoutMs` kills the child (a hostile file must not hold it), and the operations it had in flight
 * fail with PictureWorkerDown (the upload is answered 503 with Retry-After; nothing is stored).
 */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PictureRejected, type ProcessedPicture } from './picture-types.js';
import type { PictureExt } from './rules/media-name.js';
import type { PictureSize } from './rules/picture-limits.js';

export class PictureWorkerDown extends Error {}

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout;
}

type Reply = { id: number; ok: true; value: unknown } | { id: number; ok: false; rejected: boolean; message: string };

/** The child's entry: the compiled .js beside this file, or the .ts source run through tsx. */
function childEntry(): { file: string; execArgv: string[] } {
  const here = fileURLToPath(import.meta.url);
  const ts = here.endsWith('.ts');
  return { file: path.join(path.dirname(here), ts ? 'picture-child.ts' : 'picture-child.js'), execArgv: ts ? ['--import', 'tsx'] : [] };
}

const toBuffer = (u: Uint8Array) => Buffer.from(u.buffer, u.byteOffset, u.byteLength);

export class PictureWorker {
  private child: ChildProcess | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  /** `threads`: libuv threads of the child (at least the operations the pool lets run at once, plus one); `nice`: its CPU priority (19 when not given). */
  constructor(private readonly opts: { timeoutMs: number; threads: number; nice?: number }) {}

  /** The child's process id, once forked (for tests and diagnostics). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  inspect(bytes: Uint8Array, ext: PictureExt): Promise<PictureSize> {
    return this.call('inspect', bytes, ext) as Promise<PictureSize>;
  }

  async reencode(bytes: Uint8Array, ext: PictureExt): Promise<ProcessedPicture> {
    const p = (await this.call('reencode', bytes, ext)) as ProcessedPicture;
    return { ...p, bytes: toBuffer(p.bytes), sha256: toBuffer(p.sha256) };
  }

  /** Stops the child (operations in flight fail with PictureWorkerDown). */
  close(): void {
    this.child?.kill('SIGKILL');
  }

  private spawn(): ChildProcess {
    const { file, execArgv } = childEntry();
    const child = fork(file, [], {
      execArgv,
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      env: { ...process.env, UV_THREADPOOL_SIZE: String(this.opts.threads), PICTURE_CHILD_NICE: String(this.opts.nice ?? 19) },
    });
    child.on('message', (m: Reply) => this.settle(m));
    child.on('exit', () => this.down(child));
    child.on('error', () => this.down(child));
    this.hold(child, false);
    return child;
  }

  /** An idle child never keeps this process alive (it exits with it, see picture-child.ts); one with work in flight does. */
  private hold(child: ChildProcess, busy: boolean) {
    const channel = child.channel as { ref?: () => void; unref?: () => void } | undefined;
    if (busy) {
      child.ref();
      channel?.ref?.();
    } else {
      child.unref();
      channel?.unref?.();
    }
  }

  private call(op: 'inspect' | 'reencode', bytes: Uint8Array, ext: PictureExt): Promise<unknown> {
    const child = (this.child ??= this.spawn());
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.fail(id, new PictureWorkerDown(`the picture operation took longer than ${this.opts.timeoutMs} ms`));
        this.down(child);
        child.kill('SIGKILL');
      }, this.opts.timeoutMs);
      timer.unref();
      if (this.pending.size === 0) this.hold(child, true);
      this.pending.set(id, { resolve, reject, timer });
      child.send({ id, op, bytes, ext }, (err) => err && this.fail(id, new PictureWorkerDown(err.message)));
    });
  }

  private settle(m: Reply) {
    const p = this.pending.get(m.id);
    if (!p) return;
    this.pending.delete(m.id);
    clearTimeout(p.timer);
    if (this.pending.size === 0 && this.child) this.hold(this.child, false);
    if (m.ok) p.resolve(m.value);
    else p.reject(m.rejected ? new PictureRejected(m.message) : new Error(m.message));
  }

  private fail(id: number, err: Error) {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    clearTimeout(p.timer);
    p.reject(err);
  }

  private down(child: ChildProcess) {
    if (this.child !== child) return;
    this.child = null;
    for (const id of [...this.pending.keys()]) this.fail(id, new PictureWorkerDown('the picture process stopped'));
  }
}
