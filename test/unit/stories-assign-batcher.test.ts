import { describe, expect, it } from 'vitest';
import { AssignBatcher } from '../../src/stories/assign-batcher.js';
import type { AssignOutcome, ItemRef } from '../../src/stories/assign-service.js';

/** A run that records its batches and answers each item with a story id equal to its id. */
function recorder(fail: (refs: readonly ItemRef[]) => boolean = () => false) {
  const batches: number[][] = [];
  let release: () => void = () => undefined;
  const gate = new Promise<void>((r) => (release = r));
  const run = async (refs: readonly ItemRef[]): Promise<AssignOutcome[]> => {
    batches.push(refs.map((r) => r.id));
    if (batches.length === 1) await gate;
    if (fail(refs)) throw new Error(`batch ${refs.map((r) => r.id).join(',')} failed`);
    return refs.map((r) => ({ outcome: 'unchanged', storyId: r.id }));
  };
  return { batches, run, release: () => release() };
}

const ref = (id: number): ItemRef => ({ kind: 'wire', id });

describe('AssignBatcher', () => {
  it('runs the first item at once and the items that arrive meanwhile as one batch, in arrival order', async () => {
    const r = recorder();
    const b = new AssignBatcher(r.run);
    const first = b.submit(ref(1));
    const rest = [5, 3, 4, 2].map((id) => b.submit(ref(id)));
    r.release();
    expect(await first).toEqual({ outcome: 'unchanged', storyId: 1 });
    expect((await Promise.all(rest)).map((o) => (o.outcome === 'unchanged' ? o.storyId : null))).toEqual([5, 3, 4, 2]);
    expect(r.batches).toEqual([[1], [5, 3, 4, 2]]);
  });

  it('bounds a batch', async () => {
    const r = recorder();
    const b = new AssignBatcher(r.run, 2);
    const all = [1, 2, 3, 4, 5, 6].map((id) => b.submit(ref(id)));
    r.release();
    await Promise.all(all);
    expect(r.batches).toEqual([[1], [2, 3], [4, 5], [6]]);
  });

  it('retries a failed batch item by item, so that only the bad item fails', async () => {
    const r = recorder((refs) => refs.some((x) => x.id === 13));
    const b = new AssignBatcher(r.run);
    const first = b.submit(ref(10));
    const rest = [11, 13, 12].map((id) =>
      b.submit(ref(id)).then(
        (o) => o,
        (e: Error) => e.message,
      ),
    );
    r.release();
    await first;
    expect(await Promise.all(rest)).toEqual([{ outcome: 'unchanged', storyId: 11 }, 'batch 13 failed', { outcome: 'unchanged', storyId: 12 }]);
    expect(r.batches).toEqual([[10], [11, 13, 12], [11], [13], [12]]);
  });
});
