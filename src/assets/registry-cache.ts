/**
 * The registry as one process holds it: every asset by id (the asset page reads it) and the tagger
 * compiled from it on first use. Other processes' changes (staff edits, a Token Lists refresh) are
 * found through the registry's fingerprint in PostgreSQL, asked at most every CHECK_MS: `current`
 * waits for that check (the taggers), `recent` answers from memory at once and checks in the
 * background (the asset page). A change this process made itself (`invalidate`) is waited for by
 * both. Concurrent callers share one load.
 */
import type { Db } from '../platform/db.js';
import { compileTagger, type CompiledTagger } from './rules/compile.js';
import type { AssetRecord } from './rules/registry.js';
import { loadRegistry, registryVersion } from './queries.js';

const REGISTRY_CHECK_MS = 2000;

interface RegistrySnapshot {
  version: string;
  assets: ReadonlyMap<string, AssetRecord>;
  ambiguousWords: string[];
  tagger?: CompiledTagger;
}

export interface TaggingRegistry {
  assets: ReadonlyMap<string, AssetRecord>;
  tagger: CompiledTagger;
}

export class AssetRegistry {
  private snap: RegistrySnapshot | undefined;
  private checkedAt = 0;
  /** Bumped by `invalidate`; the held registry is stale while it was loaded before the last bump. */
  private generation = 0;
  private loadedGeneration = 0;
  private loading: { generation: number; promise: Promise<RegistrySnapshot> } | undefined;

  constructor(private readonly now: () => number = Date.now) {}

  /** The registry as of at most CHECK_MS ago (waits for the check when it is due). */
  async current(db: Db): Promise<RegistrySnapshot> {
    if (this.snap && !this.stale() && this.now() - this.checkedAt < REGISTRY_CHECK_MS) return this.snap;
    return this.load(db);
  }

  /** The registry held now; when the check is due it runs in the background (a failure is retried on the next call). */
  async recent(db: Db): Promise<RegistrySnapshot> {
    if (!this.snap || this.stale()) return this.load(db);
    if (this.now() - this.checkedAt >= REGISTRY_CHECK_MS) this.load(db).catch(() => undefined);
    return this.snap;
  }

  async tagger(db: Db): Promise<CompiledTagger> {
    return (await this.forTagging(db)).tagger;
  }

  /** The current registry with its compiled tagger (compiled on first use of each registry version). */
  async forTagging(db: Db): Promise<TaggingRegistry> {
    const snap = await this.current(db);
    snap.tagger ??= compileTagger([...snap.assets.values()], snap.ambiguousWords);
    return { assets: snap.assets, tagger: snap.tagger };
  }

  /** Forget the held registry (after a change this process made itself): the next use reloads it. */
  invalidate(): void {
    this.generation++;
  }

  private stale(): boolean {
    return this.loadedGeneration !== this.generation;
  }

  /** Joins the load in flight unless it started before the last `invalidate` (then one more follows it). */
  private load(db: Db): Promise<RegistrySnapshot> {
    if (this.loading && this.loading.generation === this.generation) return this.loading.promise;
    const before = this.loading?.promise.catch(() => undefined);
    const generation = this.generation;
    const promise = (before ?? Promise.resolve())
      .then(() => this.refresh(db, generation))
      .finally(() => {
        if (this.loading?.promise === promise) this.loading = undefined;
      });
    this.loading = { generation, promise };
    return promise;
  }

  private async refresh(db: Db, generation: number): Promise<RegistrySnapshot> {
    const version = await registryVersion(db);
    let snap = this.snap;
    if (snap?.version !== version) {
      const { assets, ambiguousWords } = await loadRegistry(db);
      snap = this.snap = { version, assets: new Map(assets.map((a) => [a.id, a])), ambiguousWords };
    }
    this.checkedAt = this.now();
    this.loadedGeneration = generation;
    return snap;
  }
}

/** The registry every job, command and request of this process shares. */
export const sharedRegistry = new AssetRegistry();
