/**
 * Kill and retract reasons and the public moderation log.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { editorPseudonym } from '../../src/editor/modlog-queries.js';
import type { Session } from '../support/auth.js';
import { useTestApp } from '../support/app.js';

const app = useTestApp({
  user: { username: 'writer' },
  other: { username: 'reader' },
  editor: { roles: ['editor'], username: 'Ed' },
  anonEditor: { roles: ['editor'] },
  staff: { roles: ['staff'], username: 'boss' },
});

let n = 0;
async function submit(headline = `Moderated story ${++n}`, who: Session = app.user): Promise<number> {
  const r = await app.http.post('/api/v1/news/post', { url: `https://mod.example/${++n}-${Date.now()}`, headline }, who.bearer);
  expect(r.status).toBe(201);
  return r.body.article_id;
}
const act = (id: number, action: string, body?: unknown, who: Session = app.editor) => app.http.post(`/api/v1/news/${id}/${action}`, body, who.bearer);
const mine = async (who: Session = app.user) => (await app.http.get('/api/v1/wallet/me/submissions/?per_page=50', who.bearer)).body.submissions as any[];

describe('kill and retract reasons', () => {
  it('a kill as a duplicate names the original; the submitter sees reason and duplicate_of but not the note', async () => {
    const original = await submit('The original story');
    const dup = await submit('The same story again');
    const r = await act(dup, 'kill', { reason: 'duplicate', duplicate_of: original, note: 'we ran this yesterday' });
    expect(r.status).toBe(200);
    expect(r.body.article.status).toBe('killed');
    expect(r.body.article.decision).toEqual({ reason: 'duplicate', label: 'Duplicate of another article', duplicate_of: original, note: 'we ran this yesterday' });

    const row = (await mine()).find((s) => s.id === dup);
    expect(row.decision).toEqual({ reason: 'duplicate', label: 'Duplicate of another article', duplicate_of: original });
    // The record as the submitter reads it: reason, no note.
    const rec = await app.http.get(`/api/v1/news/${dup}/`, app.user.bearer);
    expect(rec.status).toBe(200);
    expect(rec.body.decision).toEqual({ reason: 'duplicate', label: 'Duplicate of another article', duplicate_of: original });
    expect(JSON.stringify(rec.body)).not.toContain('we ran this yesterday');
    // Pending and approved submissions have no decision.
    expect((await mine()).find((s) => s.id === original).decision).toBeNull();
  });

  it('a kill without a body keeps working and records the documented default, unspecified', async () => {
    const id = await submit();
    const r = await act(id, 'kill');
    expect(r.status).toBe(200);
    expect(r.body.article.decision).toEqual({ reason: 'unspecified', label: 'No reason given', duplicate_of: null, note: null });
    expect((await mine()).find((s) => s.id === id).decision.reason).toBe('unspecified');
  });

  it('approving a killed article clears its reason; a retraction records its own, public on the retracted record', async () => {
    const id = await submit();
    expect((await act(id, 'kill', { reason: 'spam' })).status).toBe(200);
    const back = await act(id, 'approve');
    expect(back.status).toBe(200);
    expect(back.body.article.decision).toBeNull();
    const rt = await act(id, 'retract', { reason: 'misleading', note: 'source walked it back' });
    expect(rt.status).toBe(200);
    const anon = await app.http.get(`/api/v1/news/${id}/`);
    expect(anon.status).toBe(200);
    expect(anon.body.decision).toEqual({ reason: 'misleading', label: 'Misleading', duplicate_of: null });
  });

  it('refuses bad reasons, wrong types, long notes, duplicate_of without duplicate, itself, or unknown; and non-editors', async () => {
    const id = await submit();
    const bad = async (body: unknown, field: string) => {
      const r = await act(id, 'kill', body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.code).toBe('validation_failed');
      expect(JSON.stringify(r.body.error.details)).toContain(field);
    };
    await bad({ reason: 'boring' }, 'body.reason');
    await bad({ reason: 'unspecified' }, 'body.reason');
    await bad({ reason: 7 }, 'body.reason');
    await bad({ reason: 'other', note: 'x'.repeat(1001) }, 'body.note');
    await bad({ reason: 'spam', duplicate_of: 1 }, 'body.duplicate_of');
    await bad({ reason: 'duplicate', duplicate_of: 'one' }, 'body.duplicate_of');
    await bad({ reason: 'duplicate', duplicate_of: 0 }, 'body.duplicate_of');
    await bad({ reason: 'duplicate', duplicate_of: id }, 'body.duplicate_of');
    await bad({ reason: 'duplicate' }, 'body.duplicate_of');
    await bad({ reason: 'duplicate', duplicate_of: null }, 'body.duplicate_of');
    await bad({ reason: 'spam', colour: 'red' }, 'colour');
    const unknown = await act(id, 'kill', { reason: 'duplicate', duplicate_of: 99_999_999 });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('duplicate_of_not_found');
    // Nothing changed on refusal.
    expect((await app.http.get(`/api/v1/news/${id}/`, app.user.bearer)).body.status).toBe('submitted');
    expect((await act(id, 'kill', { reason: 'spam' }, app.user)).status).toBe(403);
    expect((await app.http.post(`/api/v1/news/${id}/kill`, { reason: 'spam' })).status).toBe(401);
    expect((await act(99_999_999, 'kill', { reason: 'spam' })).status).toBe(404);
  });
});

describe('GET /api/v1/modlog/', () => {
  it('lists transitions and edits of published articles newest first, editors by username or stable pseudonym; notes for staff only', async () => {
    const a = await submit('Modlog alpha');
    const b = await submit('Modlog beta');
    // The database's clock, as created_at is: everything the earlier tests did is before it.
    const since = (await sql<{ t: Date }>`SELECT clock_timestamp() AS t`.execute(app.deps.db)).rows[0].t.toISOString();
    expect((await act(a, 'edit' as never)).status).toBe(404); // no such action route
    expect((await app.http.request('PATCH', `/api/v1/news/${a}/`, { tags: ['defi'] }, app.editor.bearer)).status).toBe(200); // unpublished edit: not public
    expect((await act(a, 'approve')).status).toBe(200);
    expect((await app.http.request('PATCH', `/api/v1/news/${a}/`, { headline: 'Modlog alpha, corrected' }, app.anonEditor.bearer)).status).toBe(200);
    expect((await act(b, 'kill', { reason: 'off_topic', note: 'secret staff note' }, app.anonEditor)).status).toBe(200);
    const publishAt = new Date(Date.now() + 3600_000).toISOString();
    const c = await submit('Modlog gamma');
    expect((await act(c, 'schedule', { publish_at: publishAt })).status).toBe(200);

    const anon = await app.http.get(`/api/v1/modlog/?since=${encodeURIComponent(since)}`);
    expect(anon.status).toBe(200);
    const pseudo = editorPseudonym(app.deps.config.JWT_SECRET, app.anonEditor.userId);
    expect(anon.body.results.map((e: any) => [e.action, e.article.id, e.editor.name])).toEqual([
      ['schedule', c, 'Ed'],
      ['kill', b, pseudo],
      ['edit', a, pseudo],
      ['approve', a, 'Ed'],
    ]);
    const kill = anon.body.results[1];
    expect(kill).toMatchObject({ reason: 'off_topic', reason_label: 'Off topic', editor: { pseudonymous: true } });
    expect(kill).not.toHaveProperty('note');
    expect(JSON.stringify(anon.body)).not.toContain('secret staff note');
    expect(JSON.stringify(anon.body)).not.toContain(app.anonEditor.address.slice(2, 12));
    expect(anon.body.results[2].changes).toEqual({ headline: { from: 'Modlog alpha', to: 'Modlog alpha, corrected' } });
    expect(anon.body.results[0].changes.scheduled_for.to).toBe(new Date(publishAt).toISOString());

    // Signed in but not staff: no notes. Editors and staff: notes.
    expect(JSON.stringify((await app.http.get(`/api/v1/modlog/?since=${encodeURIComponent(since)}`, app.other.bearer)).body)).not.toContain('secret staff note');
    for (const who of [app.editor, app.staff]) {
      const r = await app.http.get(`/api/v1/modlog/?action=kill&since=${encodeURIComponent(since)}`, who.bearer);
      expect(r.body.results.map((e: any) => [e.article.id, e.note])).toEqual([[b, 'secret staff note']]);
    }

    // Filters: action, editor by username (any case) and by pseudonym, dates.
    const byAction = await app.http.get(`/api/v1/modlog/?action=approve&since=${encodeURIComponent(since)}`);
    expect(byAction.body.results.map((e: any) => e.article.id)).toEqual([a]);
    const byName = await app.http.get(`/api/v1/modlog/?editor=ed&since=${encodeURIComponent(since)}`);
    expect(byName.body.results.map((e: any) => e.action)).toEqual(['schedule', 'approve']);
    const byPseudo = await app.http.get(`/api/v1/modlog/?editor=${pseudo}`);
    expect(byPseudo.body.results.map((e: any) => e.action)).toEqual(['kill', 'edit']);
    expect((await app.http.get('/api/v1/modlog/?editor=nobody-here')).body).toMatchObject({ count: 0, results: [] });
    expect((await app.http.get('/api/v1/modlog/?editor=editor-0000000000')).body.count).toBe(0);
    expect((await app.http.get('/api/v1/modlog/?until=2000-01-01')).body.count).toBe(0);
    const today = new Date().toISOString().slice(0, 10);
    expect((await app.http.get(`/api/v1/modlog/?since=${today}&until=${today}`)).body.count).toBeGreaterThanOrEqual(4);

    // Paging, newest first, DRF-style links.
    const p1 = await app.http.get(`/api/v1/modlog/?per_page=2&since=${encodeURIComponent(since)}`);
    expect(p1.body.count).toBe(4);
    expect(p1.body.results.map((e: any) => e.action)).toEqual(['schedule', 'kill']);
    expect(p1.body.next).toContain('page=2');
    const p2 = await app.http.get(`/api/v1/modlog/?per_page=2&page=2&since=${encodeURIComponent(since)}`);
    expect(p2.body.results.map((e: any) => e.action)).toEqual(['edit', 'approve']);
    expect(p2.body.next).toBeNull();
  });

  it('refuses bad filters with 400 validation_failed', async () => {
    for (const qs of [
      'action=delete',
      'per_page=0',
      'per_page=101',
      'page=abc',
      'since=yesterday',
      'until=2026-13-45',
      'since=2026-01-02&until=2026-01-01',
      'colour=red',
      'editor=',
    ]) {
      const r = await app.http.get(`/api/v1/modlog/?${qs}`);
      expect(r.status, qs).toBe(400);
      expect(r.body.error.code, qs).toBe('validation_failed');
    }
  });
});
