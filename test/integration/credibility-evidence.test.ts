/**
 * The evidence the credibility rules read is recorded as it happens: a hashed fingerprint on wallet
 * sign-in and on a linked API key's use (never the raw address, user agent or key), and a reader on
 * a signed-in browser's click-through.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { generateApiKey, generateKeyId } from '../../src/identity/api-keys.js';
import { createTestDeps, type TestDeps } from '../support/context.js';
import { sessionFor, signIn } from '../support/auth.js';
import request from '../support/request.js';

let deps: TestDeps;
let http: ReturnType<typeof request>;
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) Gecko/20100101 Firefox/133.0';

beforeAll(async () => {
  deps = await createTestDeps();
  http = request(createApp(deps));
});
afterAll(() => deps.close());

const printsOf = (userId: number) => deps.db.selectFrom('sign_in_fingerprints').selectAll().where('user_id', '=', userId).orderBy('at').execute();

describe('sign-in fingerprints', () => {
  it('records a wallet sign-in once a day per address and user agent, hashed', async () => {
    const s = await signIn(http);
    const userId = s.body.user.id as number;
    const rows = await printsOf(userId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ via: 'wallet', api_key_id: null });
    expect(rows[0].ip_hash).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(rows[0].ip_hash).not.toContain('127.0.0.1');
    await signIn(http, s.account);
    expect(await printsOf(userId)).toHaveLength(1);
  });

  it('two accounts signing in from one client share the hashes; another user agent does not', async () => {
    const a = await signIn(http);
    const b = await signIn(http);
    const [pa] = await printsOf(a.body.user.id);
    const [pb] = await printsOf(b.body.user.id);
    expect(pb.ip_hash).toBe(pa.ip_hash);
    expect(pb.ua_hash).toBe(pa.ua_hash);
  });

  it("records a linked API key's use with the key's id, once a day, never the key", async () => {
    const user = await sessionFor(deps.db, deps.config.JWT_SECRET);
    const k = generateApiKey();
    const id = generateKeyId();
    await deps.db.insertInto('api_keys').values({ id, key_hash: k.hash, key_first4: k.first4, key_last4: k.last4, name: 't', user_id: user.userId }).execute();
    for (const ua of [BROWSER, BROWSER, 'scripted/1.0']) {
      const r = await http.get('/api/v1/wallet/me/', { authorization: `Bearer ${k.raw}`, 'user-agent': ua });
      expect(r.status).toBe(200);
    }
    const rows = await printsOf(user.userId);
    expect(rows.map((r) => [r.via, r.api_key_id])).toEqual([
      ['api_key', id],
      ['api_key', id],
    ]);
    expect(new Set(rows.map((r) => r.ua_hash)).size).toBe(2);
    expect(JSON.stringify(rows)).not.toContain(k.raw.slice(6, 16));
  });

  it('an API key linked to no account records nothing', async () => {
    const k = generateApiKey();
    await deps.db.insertInto('api_keys').values({ id: generateKeyId(), key_hash: k.hash, key_first4: k.first4, key_last4: k.last4, name: 'anon' }).execute();
    const before = await deps.db
      .selectFrom('sign_in_fingerprints')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    expect((await http.get('/api/v1/news/', { authorization: `Bearer ${k.raw}` })).status).toBe(200);
    const after = await deps.db
      .selectFrom('sign_in_fingerprints')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    expect(after.n).toBe(before.n);
  });
});

describe('article readers', () => {
  async function article(status: 'approved' | 'submitted') {
    const slug = `ev-${status}-${Math.random().toString(36).slice(2, 8)}`;
    return (
      await deps.db
        .insertInto('articles')
        .values({ slug, headline: slug, url: `https://e.org/${slug}`, normalized_url: `https://e.org/${slug}`, status, published_at: status === 'approved' ? new Date() : null })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
  }
  const readers = (articleId: number) => deps.db.selectFrom('article_readers').select('user_id').where('article_id', '=', articleId).execute();

  it("records a signed-in browser's click-through once, on approved and submitted articles", async () => {
    const reader = await sessionFor(deps.db, deps.config.JWT_SECRET);
    for (const status of ['approved', 'submitted'] as const) {
      const id = await article(status);
      for (let i = 0; i < 2; i++) {
        const r = await http.get(`/api/v1/news/${id}/click`, { ...reader.bearer, 'user-agent': BROWSER });
        expect(r.status).toBe(302);
      }
      expect(await readers(id)).toEqual([{ user_id: reader.userId }]);
    }
  });

  it('does not record anonymous callers or scripted clients', async () => {
    const reader = await sessionFor(deps.db, deps.config.JWT_SECRET);
    const id = await article('approved');
    expect((await http.get(`/api/v1/news/${id}/click`, { 'user-agent': BROWSER })).status).toBe(302);
    expect((await http.get(`/api/v1/news/${id}/click`, { ...reader.bearer, 'user-agent': 'curl/8.5.0' })).status).toBe(302);
    expect(await readers(id)).toEqual([]);
  });
});
