/**
 * The console's credibility page (/editor/credibility/): who gets which page, the flags with their
 * evidence and buttons under the console's CSP, and a decision through the REST API from the page
 * (the CSRF check on cookie-authenticated writes).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { recomputeMonth } from '../../src/credibility/index.js';
import { sessionFor, type Session } from '../support/auth.js';
import { createTestDeps, type TestDeps } from '../support/context.js';
import request from '../support/request.js';

let deps: TestDeps;
let http: ReturnType<typeof request>;
let staff: Session;
let editor: Session;
const ORIGIN = 'http://127.0.0.1:8000';
const MONTH = '2025-07';
const asCookie = (s: Session) => ({ cookie: `access_token=${s.token}` });

beforeAll(async () => {
  deps = await createTestDeps();
  http = request(createApp(deps));
  staff = await sessionFor(deps.db, deps.config.JWT_SECRET, { roles: ['staff'], username: 'staffer' });
  editor = await sessionFor(deps.db, deps.config.JWT_SECRET, { roles: ['editor'], username: 'ed' });
  const author = await sessionFor(deps.db, deps.config.JWT_SECRET);
  const at = new Date('2025-07-10T08:00:00Z');
  const { id } = await deps.db
    .insertInto('articles')
    .values({
      slug: 'cc',
      headline: 'cc',
      url: 'https://e.org/cc',
      normalized_url: 'https://e.org/cc',
      status: 'approved',
      submitted_by: author.userId,
      created_at: at,
      published_at: at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  // Four accounts created within minutes from one address, each voting on the article: a cohort.
  for (let i = 0; i < 4; i++) {
    const s = await sessionFor(deps.db, deps.config.JWT_SECRET, { username: `cohort_${i}` });
    const created = new Date(`2025-06-01T10:0${i}:00Z`);
    await deps.db.updateTable('users').set({ created_at: created }).where('id', '=', s.userId).execute();
    await deps.db
      .insertInto('sign_in_fingerprints')
      .values({ user_id: s.userId, ip_hash: 'one-address', ua_hash: `ua-${i}`, at: created })
      .execute();
    await deps.db
      .insertInto('votes')
      .values({ article_id: id, user_id: s.userId, weight: 1, created_at: new Date(at.getTime() + (i + 1) * 3_600_000) })
      .execute();
  }
  expect((await recomputeMonth(deps.db, MONTH, { now: new Date('2025-08-02T00:00:00Z') })).status).toBe('finished');
});
afterAll(async () => {
  await http.close();
  await deps.close();
});

describe('the credibility page', () => {
  it('signed out: the sign-in page (401); an editor without the staff role: "Staff only" (403), no flags', async () => {
    const out = await http.get(`/editor/credibility/?month=${MONTH}`);
    expect(out.status).toBe(401);
    expect(out.text).toContain('Sign in with wallet');
    const ed = await http.get(`/editor/credibility/?month=${MONTH}`, asCookie(editor));
    expect(ed.status).toBe(403);
    expect(ed.text).toContain('Staff only');
    expect(ed.text).not.toContain('cohort_0');
    expect((await http.get('/editor/credibility/?month=2025-13', asCookie(staff))).status).toBe(400);
  });

  it('staff get the flags with accounts, evidence and confirm/clear buttons, under a CSP without inline scripts', async () => {
    const r = await http.get(`/editor/credibility/?month=${MONTH}`, asCookie(staff));
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('text/html');
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(r.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(r.text).not.toMatch(/\son[a-z]+=/);
    expect(r.text).toMatch(/<section class="flag" id="flag-2025-07\.cohort\.[0-9a-f]{12}"/);
    for (let i = 0; i < 4; i++) expect(r.text).toContain(`cohort_${i}`);
    expect(r.text).toContain('<dt>created within s</dt><dd>180</dd>');
    expect(r.text).toContain('data-flag-act="confirm"');
    expect(r.text).toContain('data-flag-act="clear"');
    expect(r.text).toContain('Open: no decision yet.');
    expect(r.text).toContain('<p id="flag-count">1 flag.</p>');
  });

  it("a decision from the page needs the page's Origin (CSRF check); the page then shows it", async () => {
    const page = await http.get(`/editor/credibility/?month=${MONTH}`, asCookie(staff));
    const id = /data-flag="([^"]+)"/.exec(page.text)![1];
    const bad = await http.post(`/api/v1/credibility/flags/${id}/confirm`, { note: 'one person' }, { ...asCookie(staff), origin: 'https://evil.example' });
    expect(bad.status).toBe(403);
    expect(bad.body.error.code).toBe('csrf_origin_mismatch');
    const ok = await http.post(`/api/v1/credibility/flags/${id}/confirm`, { note: 'one person' }, { ...asCookie(staff), origin: ORIGIN });
    expect(ok.status).toBe(200);
    const after = await http.get(`/editor/credibility/?month=${MONTH}&decision=confirmed`, asCookie(staff));
    expect(after.text).toContain('data-state="confirmed"');
    expect(after.text).toContain('Confirmed by staffer');
    expect(after.text).toContain('(note: one person)');
    expect(after.text).toMatch(/data-flag-act="confirm" disabled/);
    expect((await http.get(`/editor/credibility/?month=${MONTH}&decision=open`, asCookie(staff))).text).toContain('<p id="flag-count">0 flags.</p>');
  });
});
