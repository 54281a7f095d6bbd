import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { sessionFor, type Session } from '../support/auth.js';
import { createTestDeps, type TestDeps } from '../support/context.js';
import request from '../support/request.js';

let deps: TestDeps;
let http: ReturnType<typeof request>;
let alice: Session;
let editor: Session;
const ORIGIN = 'http://127.0.0.1:8000';

beforeAll(async () => {
  deps = await createTestDeps();
  http = request(createApp(deps));
  alice = await sessionFor(deps.db, deps.config.JWT_SECRET);
  editor = await sessionFor(deps.db, deps.config.JWT_SECRET, { roles: ['editor'] });
});
afterAll(async () => {
  await http.close();
  await deps.close();
});

async function article(headline: string): Promise<number> {
  const r = await http.post('/api/v1/news/post', { url: `https://votes.example/${encodeURIComponent(headline)}`, headline }, alice.bearer);
  expect(r.status).toBe(201);
  return r.body.article_id;
}

async function counters(id: number) {
  const a = await deps.db.selectFrom('articles').select(['vote_count', 'votes_cast']).where('id', '=', id).executeTakeFirstOrThrow();
  const v = await deps.db
    .selectFrom('votes')
    .select((eb) => [eb.fn.coalesce(eb.fn.sum<number>('weight'), eb.lit(0)).as('net'), eb.fn.countAll<number>().as('n')])
    .where('article_id', '=', id)
    .executeTakeFirstOrThrow();
  return { vote_count: a.vote_count, votes_cast: a.votes_cast, net: Number(v.net), n: Number(v.n) };
}

describe('POST /news/:id/vote', () => {
  it('upvotes, switches to a downvote, clears; the body reports the caller weight and both counters', async () => {
    const id = await article('Vote on me');
    const bob = await sessionFor(deps.db, deps.config.JWT_SECRET);
    const up = await http.post(`/api/v1/news/${id}/vote`, { weight: 1 }, bob.bearer);
    expect(up.status).toBe(200);
    expect(up.body).toEqual({ article_id: id, weight: 1, vote_count: 1, votes: 1 });
    const again = await http.post(`/api/v1/news/${id}/vote`, { weight: 1 }, bob.bearer);
    expect(again.body).toEqual({ article_id: id, weight: 1, vote_count: 1, votes: 1 }); // idempotent
    await http.post(`/api/v1/news/${id}/vote`, { weight: 1 }, alice.bearer);
    const down = await http.post(`/api/v1/news/${id}/vote`, { weight: -1 }, bob.bearer);
    expect(down.body).toEqual({ article_id: id, weight: -1, vote_count: 0, votes: 2 });
    const clear = await http.post(`/api/v1/news/${id}/vote`, { weight: 0 }, bob.bearer);
    expect(clear.body).toEqual({ article_id: id, weight: 0, vote_count: 1, votes: 1 });
    const clear2 = await http.post(`/api/v1/news/${id}/vote`, { weight: 0 }, bob.bearer);
    expect(clear2.body).toEqual({ article_id: id, weight: 0, vote_count: 1, votes: 1 });
    // The full record shows the caller's vote.
    expect((await http.get(`/api/v1/news/${id}/`, alice.bearer)).body.my_vote).toBe(1);
    expect((await http.get(`/api/v1/news/${id}/`, bob.bearer)).body.my_vote).toBe(0);
  });

  it('keeps vote_count exact under concurrent votes from many users', async () => {
    const id = await article('Concurrent voting');
    const users = await Promise.all(Array.from({ length: 40 }, () => sessionFor(deps.db, deps.config.JWT_SECRET)));
    // Each user votes twice at once (up then down, or down then up): whichever lands last counts.
    await Promise.all(
      users.flatMap((u, i) => [
        http.post(`/api/v1/news/${id}/vote`, { weight: i % 2 ? 1 : -1 }, u.bearer),
        http.post(`/api/v1/news/${id}/vote`, { weight: i % 3 ? -1 : 1 }, u.bearer),
      ]),
    );
    const c = await counters(id);
    expect(c.vote_count).toBe(c.net);
    expect(c.votes_cast).toBe(c.n);
    expect(c.n).toBe(40);
    // All up, concurrently: exactly 40.
    await Promise.all(users.map((u) => http.post(`/api/v1/news/${id}/vote`, { weight: 1 }, u.bearer)));
    expect(await counters(id)).toEqual({ vote_count: 40, votes_cast: 40, net: 40, n: 40 });
    // All clear, concurrently: exactly 0.
    await Promise.all(users.map((u) => http.post(`/api/v1/news/${id}/vote`, { weight: 0 }, u.bearer)));
    expect(await counters(id)).toEqual({ vote_count: 0, votes_cast: 0, net: 0, n: 0 });
  });

  it('keeps one vote per user when the same user fires many votes at once', async () => {
    const id = await article('One user many clicks');
    const u = await sessionFor(deps.db, deps.config.JWT_SECRET);
    const rs = await Promise.all(Array.from({ length: 30 }, (_, i) => http.post(`/api/v1/news/${id}/vote`, { weight: [1, -1, 0][i % 3] }, u.bearer)));
    expect(rs.every((r) => r.status === 200)).toBe(true);
    const c = await counters(id);
    expect(c.n).toBeLessThanOrEqual(1);
    expect(c.vote_count).toBe(c.net);
    expect(c.votes_cast).toBe(c.n);
  });

  it('rejects weights other than the integers 1, -1 and 0', async () => {
    const id = await article('Bad weights');
    for (const body of [{ weight: 2 }, { weight: '1' }, { weight: 0.5 }, { weight: null }, {}, { weight: 1, extra: true }]) {
      const r = await http.post(`/api/v1/news/${id}/vote`, body, alice.bearer);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.code).toBe('validation_failed');
      expect(r.body.error.details.fields[0].path).toMatch(/^body\.(weight|extra)$/);
    }
  });

  it('401 without credentials, 403 for a cookie without the trusted Origin, 404 unknown article, 409 on killed ones', async () => {
    const id = await article('Closed soon');
    expect((await http.post(`/api/v1/news/${id}/vote`, { weight: 1 })).status).toBe(401);
    expect((await http.post(`/api/v1/news/${id}/vote`, { weight: 1 }, { cookie: `access_token=${alice.token}` })).status).toBe(403);
    expect((await http.post(`/api/v1/news/${id}/vote`, { weight: 1 }, alice.cookie(ORIGIN))).status).toBe(200);
    const missing = await http.post('/api/v1/news/999999/vote', { weight: 1 }, alice.bearer);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('article_not_found');
    await http.post(`/api/v1/news/${id}/kill`, undefined, editor.bearer);
    const closed = await http.post(`/api/v1/news/${id}/vote`, { weight: -1 }, alice.bearer);
    expect(closed.status).toBe(409);
    expect(closed.body.error).toMatchObject({ code: 'article_closed', details: { current_status: 'killed' } });
  });

  it('schedules one debounced hot-score recompute per article per window', async () => {
    const id = await article('Debounce me');
    const users = await Promise.all(Array.from({ length: 5 }, () => sessionFor(deps.db, deps.config.JWT_SECRET)));
    await Promise.all(users.map((u) => http.post(`/api/v1/news/${id}/vote`, { weight: 1 }, u.bearer)));
    const delayed = await deps.queue.queue('hot-scores').getDelayed();
    const mine = delayed.filter((j) => j.id!.startsWith(`hot-scores-a${id}-`));
    expect(mine.length).toBeGreaterThanOrEqual(1);
    expect(mine.length).toBeLessThanOrEqual(2); // a burst may straddle a window boundary
    expect(mine[0].data).toEqual({ article_ids: [id], all: false, window: expect.any(Number) });
  });
});
