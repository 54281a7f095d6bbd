/**
 * An editorial transition, its edit-history row (the moderation log reads it: kill reason, note,
 * duplicate_of) and its event commit together or not at all: a failure in any of the three writes
 * leaves the article as it was, with no history row and no event.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertSubmission } from '../../src/articles/service.js';
import { transitionArticle } from '../../src/editor/service.js';
import { sessionFor } from '../support/auth.js';
import { createTestDeps, type TestDeps } from '../support/context.js';

let deps: TestDeps;
let editorId: number;
let writerId: number;
let n = 0;

beforeAll(async () => {
  deps = await createTestDeps();
  editorId = (await sessionFor(deps.db, deps.config.JWT_SECRET, { roles: ['editor'] })).userId;
  writerId = (await sessionFor(deps.db, deps.config.JWT_SECRET)).userId;
});
afterAll(async () => {
  await deps.close();
});

async function submitted(): Promise<number> {
  const url = `https://atomic.example/${++n}-${Date.now()}`;
  const r = await insertSubmission(deps.db, { url, normalizedUrl: url, headline: `Atomic ${n}`, headlineSource: 'supplied', source: 'atomic.example', userId: writerId });
  if (!('created' in r) || !r.created) throw new Error('not created');
  return r.created.id;
}

async function state(id: number) {
  const a = await deps.db.selectFrom('articles').select(['status', 'decision_reason', 'decision_note']).where('id', '=', id).executeTakeFirstOrThrow();
  const edits = await deps.db.selectFrom('article_edits').select(['action', 'reason', 'note']).where('article_id', '=', id).execute();
  const events = await deps.db.selectFrom('event_log').select('type').where('article_id', '=', id).orderBy('event_id').execute();
  return { ...a, edits, events: events.map((e) => e.type) };
}

/** Run `body` with a trigger that fails `table`'s inserts or updates for this one article. */
async function failing<T>(table: 'article_edits' | 'articles', id: number, body: () => Promise<T>): Promise<T> {
  const column = table === 'articles' ? 'id' : 'article_id';
  await sql
    .raw(
      `CREATE FUNCTION atomic_fail_${id}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.${column} = ${id} THEN RAISE EXCEPTION 'injected failure'; END IF; RETURN NEW; END $$;
       CREATE TRIGGER atomic_fail_${id} BEFORE INSERT OR UPDATE ON ${table} FOR EACH ROW EXECUTE FUNCTION atomic_fail_${id}();`,
    )
    .execute(deps.db);
  try {
    return await body();
  } finally {
    await sql.raw(`DROP TRIGGER atomic_fail_${id} ON ${table}; DROP FUNCTION atomic_fail_${id}();`).execute(deps.db);
  }
}

describe('editorial transition and its history row are one transaction', () => {
  it('a kill whose history row cannot be written leaves the article submitted, with no reason and no news.killed', async () => {
    const id = await submitted();
    const before = await state(id);
    await expect(
      failing('article_edits', id, () => transitionArticle(deps.db, { id, action: 'kill', editorId, decision: { reason: 'spam', note: 'bought links' } })),
    ).rejects.toThrow(/injected failure/);
    const after = await state(id);
    expect(after).toEqual(before);
    expect(after).toMatchObject({ status: 'submitted', decision_reason: null, decision_note: null, edits: [], events: ['news.submitted'] });
  });

  it('a kill whose status change fails writes no history row (nothing reaches the moderation log)', async () => {
    const id = await submitted();
    await expect(failing('articles', id, () => transitionArticle(deps.db, { id, action: 'kill', editorId, decision: { reason: 'spam' } }))).rejects.toThrow(/injected failure/);
    expect(await state(id)).toMatchObject({ status: 'submitted', edits: [], events: ['news.submitted'] });
  });

  it('when nothing fails, the status, the reason, the history row and the event are all there', async () => {
    const id = await submitted();
    const r = await transitionArticle(deps.db, { id, action: 'kill', editorId, decision: { reason: 'spam', note: 'bought links' } });
    expect(r.ok).toBe(true);
    expect(await state(id)).toEqual({
      status: 'killed',
      decision_reason: 'spam',
      decision_note: 'bought links',
      edits: [{ action: 'kill', reason: 'spam', note: 'bought links' }],
      events: ['news.submitted', 'news.killed'],
    });
  });
});
