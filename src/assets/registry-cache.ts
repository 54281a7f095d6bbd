/**
 * The compiled tagger of one process, rebuilt when the registry changes (staff edits, a Token Lists
 * refresh): each use asks for the registry's fingerprint at most every CHECK_MS and recompiles when
 * it moved. Concurrent callers share one load.
 */
import type { Db } from '../platform/db.js';
import { compileTagger, type CompiledTagger } from './rules/compile.js';
import { loadRegistry, registryVersion } from './queries.js';

const CHECK_MS = 2000;

export class AssetRegistry {
  private compiled: { version: string; tagger: CompiledTagger } | undefined;
  private checkedAt = 0;
  private loading: Promise<CompiledTagger> | undefined;

  constructor(private readonly now: () => number = Date.now) {}

  async tagger(db: Db): Promise<CompiledTagger> {
    if (this.compiled && this.now() - this.checkedAt < CHECK_MS) return this.compiled.tagger;
    this.loading ??= this.refresh(db).finally(() => (this.loading = undefined));
    return this.loading;
  }

  /** Forget the compiled tagger (after a change this process made itself). */
  invalidate(): void {
    this.checkedAt = 0;
  }

  private async refresh(db: Db): Promise<CompiledTagger> {
    const version = await registryVersion(db);
    this.checkedAt = this.now();
    if (this.compiled?.version === version) return this.compiled.tagger;
    const { assets, ambiguousWords } = await loadRegistry(db);
    this.compiled = { version, tagger: compileTagger(assets, ambiguousWords) };
    return this.compiled.tagger;
  }
}

/** The registry every job and command of this process shares. */
export const sharedRegistry = new AssetRegistry();
