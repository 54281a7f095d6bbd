import { beforeAll, describe, expect, it } from 'vitest';
import type { ArticleStatus } from '../../src/articles/rules/state.js';
import type { Session } from '../support/auth.js';
import { useTestApp } from '../support/app.js';

const app = useTestApp({ me: {}, other: {} });

async function article(userId: number | null, status: ArticleStatus, minutesAgo: number, published = false) {
  const at = new Date(Date.now() - minutesAgo * 60_000);
  return app.deps.db
    .insertInto('articles')
    .values({
      slug: `s-${status}-${minutesAgo}`,
      headline: `${status} ${minutesAgo}`,
      url: `https://example.org/${status}/${minutesAgo}`,
      normalized_url: `https://example.org/${status}/${minutesAgo}`,
      status,
      submitted_by: userId,
      created_at: at,
      published_at: published ? new Date(at.getTime() + 60_000) : null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
}

beforeAll(async () => {
  // Mine: 3 approved (one of them scheduled), 2 pending, 1 killed, 1 retracted. Newest first = smallest minutesAgo.
  await article(app.me.userId, 'approved', 10, true);
  await article(app.me.userId, 'approved', 20, true);
  await article(app.me.userId, 'scheduled', 30);
  await article(app.me.userId, 'submitted', 40);
  await article(app.me.userId, 'submitted', 50);
  await article(app.me.userId, 'killed', 60);
  await article(app.me.userId, 'retracted', 70, true);
  // Someone else's, and a wire item without submitter: never in my list.
  await article(app.other.userId, 'approved', 5, true);
  await article(null, 'approved', 6, true);
});

const get = (qs = '', s: Session = app.me) => app.http.get(`/api/v1/wallet/me/submissions/${qs}`, s.bearer);

describe('GET /wallet/me/submissions/', () => {
  it('lists all my submissions newest first with stats and pagination by default', async () => {
    const r = await get();
    expect(r.status).toBe(200);
    expect(r.body.submissions.map((s: any) => s.headline)).toEqual(['approved 10', 'approved 20', 'scheduled 30', 'submitted 40', 'submitted 50', 'killed 60', 'retracted 70']);
    const first = r.body.submissions[0];
    expect(Object.keys(first).sort()).toEqual(['decision', 'headline', 'id', 'posted_at', 'status', 'submitted_at', 'url']);
    expect(new Date(first.posted_at).getTime()).toBeGreaterThan(new Date(first.submitted_at).getTime());
    expect(r.body.submissions[3].posted_at).toBeNull();
    // approval_rate = approved / (approved + rejected) = 3 / 4; pending and retracted are not decided.
    expect(r.body.stats).toEqual({ total_submitted: 7, approved: 3, pending: 2, rejected: 1, approval_rate: 0.75 });
    expect(r.body.pagination).toEqual({ page: 1, per_page: 20, total: 7, total_pages: 1, has_next: false, has_previous: false });
  });

  it('filters by status; stats stay over all submissions', async () => {
    const approved = await get('?status=approved');
    expect(approved.body.submissions.map((s: any) => s.status)).toEqual(['approved', 'approved', 'scheduled']);
    expect(approved.body.pagination.total).toBe(3);
    expect(approved.body.stats.total_submitted).toBe(7);
    expect((await get('?status=submitted')).body.submissions.map((s: any) => s.headline)).toEqual(['submitted 40', 'submitted 50']);
    expect((await get('?status=killed')).body.submissions.map((s: any) => s.status)).toEqual(['killed']);
    expect((await get('?status=all')).body.pagination.total).toBe(7);
  });

  it('pages with page/per_page; a page past the end is empty', async () => {
    const p2 = await get('?per_page=3&page=2');
    expect(p2.body.submissions.map((s: any) => s.headline)).toEqual(['submitted 40', 'submitted 50', 'killed 60']);
    expect(p2.body.pagination).toEqual({ page: 2, per_page: 3, total: 7, total_pages: 3, has_next: true, has_previous: true });
    const p9 = await get('?per_page=3&page=9');
    expect(p9.body.submissions).toEqual([]);
    expect(p9.body.pagination.has_next).toBe(false);
    expect((await get('?per_page=50')).status).toBe(200);
  });

  it('a user without submissions gets zero stats and approval_rate 0', async () => {
    const fresh = await app.session();
    const r = await get('', fresh);
    expect(r.body).toEqual({
      submissions: [],
      stats: { total_submitted: 0, approved: 0, pending: 0, rejected: 0, approval_rate: 0 },
      pagination: { page: 1, per_page: 20, total: 0, total_pages: 0, has_next: false, has_previous: false },
    });
  });

  it('rejects bad parameters with 400 naming each, and anonymous callers with 401', async () => {
    for (const [qs, field] of [
      ['?per_page=51', 'query.per_page'],
      ['?per_page=0', 'query.per_page'],
      ['?page=0', 'query.page'],
      ['?page=abc', 'query.page'],
      ['?status=rejected', 'query.status'],
      ['?status=approved&sort=new', 'query.sort'],
    ]) {
      const r = await get(qs);
      expect(r.status, qs).toBe(400);
      expect(r.body.error.code).toBe('validation_failed');
      expect(r.body.error.details.fields.map((f: any) => f.path)).toEqual([field]);
    }
    expect((await app.http.get('/api/v1/wallet/me/submissions/')).status).toBe(401);
  });
});
