/**
 * Provenance verdicts for the editors' console, looked up at most once per item per hour.
 *
 * One Redis key per article, `<prefix>:editor:prov:<id>`, with a one-hour TTL set when the lookup is
 * claimed (SET NX): while it holds `pending` a lookup is running somewhere (any web process); then
 * it holds the result (SET XX KEEPTTL, so the hour still counts from the claim). A new lookup can
 * only be claimed once the key has expired. A failed lookup deletes its claim so the next view
 * retries. The queue page only reads these keys (one MGET); the item page and the provenance
 * fragment claim and compute, waiting at most EDITOR_PROVENANCE_WAIT_MS for the answer.
 */
import type { AppDeps } from '../platform/deps.js';
import type { ProvenanceCheckResult } from '../provenance/index.js';
import { provenanceSettings } from '../provenance/index.js';
import { checkProvenance } from '../provenance/index.js';
import { editorProvenanceKey } from '../platform/redis-keys.js';

export const PROVENANCE_CACHE_TTL_S = 3600;
const PENDING = 'pending';

export type CachedProvenance = { state: 'done'; result: ProvenanceCheckResult } | { state: 'pending' } | { state: 'missing' };

export class EditorProvenance {
  /** Lookups this process has run (the bench and tests read it). */
  lookups = 0;

  constructor(private readonly deps: Pick<AppDeps, 'db' | 'redis' | 'config' | 'log'>) {}

  private key(id: number): string {
    return editorProvenanceKey(this.deps.config.QUEUE_PREFIX, id);
  }

  private parse(raw: string | null): CachedProvenance {
    if (raw === null) return { state: 'missing' };
    if (raw === PENDING) return { state: 'pending' };
    try {
      return { state: 'done', result: JSON.parse(raw) as ProvenanceCheckResult };
    } catch {
      return { state: 'missing' };
    }
  }

  /**
   * Finished verdicts this process has read, until their hour is over (a verdict never changes
   * within its hour, so the queue page need not fetch and parse it again). Bounded.
   */
  private readonly local = new Map<number, { result: ProvenanceCheckResult; until: number }>();
  private static readonly LOCAL_MAX = 20_000;

  private remember(id: number, c: CachedProvenance): CachedProvenance {
    if (c.state !== 'done') return c;
    const checked = Date.parse(c.result.meta.checked_at);
    const until = (Number.isNaN(checked) ? Date.now() : checked) + (PROVENANCE_CACHE_TTL_S - 60) * 1000;
    if (this.local.size >= EditorProvenance.LOCAL_MAX) this.local.delete(this.local.keys().next().value!);
    this.local.set(id, { result: c.result, until });
    return c;
  }

  /** What the cache holds for each id (at most one round trip, for the ids not known here); never computes. */
  async peek(ids: number[]): Promise<Map<number, CachedProvenance>> {
    const out = new Map<number, CachedProvenance>();
    const now = Date.now();
    const ask: number[] = [];
    for (const id of ids) {
      const l = this.local.get(id);
      if (l && l.until > now) out.set(id, { state: 'done', result: l.result });
      else ask.push(id);
    }
    if (ask.length === 0) return out;
    const raw = await this.deps.redis.mget(...ask.map((id) => this.key(id)));
    ask.forEach((id, i) => out.set(id, this.remember(id, this.parse(raw[i]))));
    return out;
  }

  /**
   * The verdict of one item: the cached one, else claim and run the lookup (unless another process
   * holds the claim), waiting at most `waitMs` for it; `pending` when the answer is not there by then
   * (the lookup goes on and lands in the cache).
   */
  async get(item: { id: number; url: string; headline: string }, waitMs: number): Promise<CachedProvenance> {
    const key = this.key(item.id);
    const cur = this.parse(await this.deps.redis.get(key));
    if (cur.state === 'done') return cur;
    let running: Promise<unknown>;
    if (cur.state === 'missing' && (await this.deps.redis.set(key, PENDING, 'EX', PROVENANCE_CACHE_TTL_S, 'NX')) === 'OK') {
      running = this.lookup(item).catch(() => undefined);
    } else {
      running = this.poll(key, waitMs);
    }
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([running, new Promise((r) => (timer = setTimeout(r, waitMs)))]);
    clearTimeout(timer);
    return this.parse(await this.deps.redis.get(key));
  }

  private async lookup(item: { id: number; url: string; headline: string }): Promise<void> {
    const key = this.key(item.id);
    this.lookups++;
    try {
      const result = await checkProvenance(
        this.deps.db,
        { url: item.url, text: item.headline },
        { now: new Date(), trgmThreshold: provenanceSettings(this.deps.config).trgmThreshold },
      );
      await this.deps.redis.set(key, JSON.stringify(result), 'KEEPTTL', 'XX');
    } catch (err) {
      this.deps.log.warn({ articleId: item.id, err: (err as Error).message }, 'editor provenance lookup failed');
      await this.deps.redis.del(key).catch(() => undefined);
      throw err;
    }
  }

  /** Wait (bounded) for another process's lookup to land. */
  private async poll(key: string, waitMs: number): Promise<void> {
    const until = Date.now() + waitMs;
    while (Date.now() < until) {
      const v = await this.deps.redis.get(key);
      if (v !== PENDING) return;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
