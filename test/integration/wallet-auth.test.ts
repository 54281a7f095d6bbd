import { SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { signAccessToken } from '../../src/identity/tokens.js';
import { newAccount, signIn } from '../support/auth.js';
import request from '../support/request.js';
import { useTestApp } from '../support/app.js';

const app = useTestApp();
let http2: ReturnType<typeof request>;
const ORIGIN = 'http://127.0.0.1:8000';

beforeAll(async () => {
  // A second app instance on the same Redis/Postgres stands for a second web process.
  http2 = request(createApp(app.deps));
});

describe('nonce', () => {
  it('rejects a malformed address with 400 naming the field', async () => {
    for (const bad of ['0x123', 'hello', '0xZZ' + 'a'.repeat(38)]) {
      const r = await app.http.get(`/api/v1/wallet/nonce/${bad}/`);
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('validation_failed');
      expect(r.body.error.details.fields[0].path).toBe('params.address');
    }
  });

  it('returns a random hex nonce and an EIP-4361 message', async () => {
    const acct = newAccount();
    const a = await app.http.get(`/api/v1/wallet/nonce/${acct.address.toLowerCase()}/`);
    const b = await app.http.get(`/api/v1/wallet/nonce/${acct.address}/`);
    expect(a.status).toBe(200);
    expect(a.body.nonce).toMatch(/^[0-9a-f]{32}$/);
    expect(a.body.nonce).not.toBe(b.body.nonce);
    const m: string = a.body.message;
    expect(m.split('\n')[0]).toBe('127.0.0.1:8000 wants you to sign in with your Ethereum account:');
    expect(m.split('\n')[1]).toBe(acct.address); // checksummed
    for (const line of ['URI: http://127.0.0.1:8000', 'Version: 1', 'Chain ID: 1', `Nonce: ${a.body.nonce}`]) expect(m).toContain(line);
    expect(m).toMatch(/Issued At: \d{4}-\d\d-\d\dT/);
    expect(m).toMatch(/Expiration Time: \d{4}-\d\d-\d\dT/);
  });
});

describe('verify', () => {
  it('signs in: cookies set HttpOnly/SameSite, tokens echoed, profile returned, user created once', async () => {
    const acct = newAccount();
    const s = await signIn(app.http, acct);
    expect(s.body.authenticated).toBe(true);
    expect(s.body.token_type).toBe('Bearer');
    expect(s.body.user.ethereum_address).toBe(acct.address);
    expect(s.body.user.account_type).toBe('human');
    const again = await signIn(app.http, acct);
    expect(again.body.user.id).toBe(s.body.user.id);
    const me = await app.http.get('/api/v1/wallet/me/', { cookie: s.cookie });
    expect(me.status).toBe(200);
    expect(me.body.ethereum_address).toBe(acct.address);
  });

  it('sets cookies with the right attributes', async () => {
    const acct = newAccount();
    const n = await app.http.get(`/api/v1/wallet/nonce/${acct.address}/`);
    const signature = await acct.signMessage({ message: n.body.message });
    const v = await app.http.post('/api/v1/wallet/verify/', { address: acct.address, signature, nonce: n.body.nonce });
    const set = v.headers.getSetCookie();
    const access = set.find((c) => c.startsWith('access_token='))!;
    const refresh = set.find((c) => c.startsWith('refresh_token='))!;
    expect(access).toContain('HttpOnly');
    expect(access).toContain('SameSite=Lax');
    expect(access).toContain('Max-Age=3600');
    expect(access).not.toContain('Secure'); // http base URL
    expect(refresh).toContain('HttpOnly');
    expect(access).toContain(`access_token=${v.body.access_token}`);
  });

  it('names each missing or malformed field', async () => {
    const r = await app.http.post('/api/v1/wallet/verify/', { signature: '0x12' });
    expect(r.status).toBe(400);
    const fields = r.body.error.details.fields.map((f: any) => f.path).sort();
    expect(fields).toEqual(['body.address', 'body.nonce', 'body.signature']);
  });

  it('a nonce issued by one web process verifies on another, and only once', async () => {
    const acct = newAccount();
    const n = await app.http.get(`/api/v1/wallet/nonce/${acct.address}/`);
    const signature = await acct.signMessage({ message: n.body.message });
    const ok = await http2.post('/api/v1/wallet/verify/', { address: acct.address, signature, nonce: n.body.nonce });
    expect(ok.status).toBe(200);
    const reuse = await app.http.post('/api/v1/wallet/verify/', { address: acct.address, signature, nonce: n.body.nonce });
    expect(reuse.status).toBe(401);
    expect(reuse.body.error.code).toBe('nonce_used');
  });

  it('two racing verify calls with one nonce: exactly one wins', async () => {
    const acct = newAccount();
    const n = await app.http.get(`/api/v1/wallet/nonce/${acct.address}/`);
    const signature = await acct.signMessage({ message: n.body.message });
    const body = { address: acct.address, signature, nonce: n.body.nonce };
    const results = await Promise.all([...Array(8)].map((_, i) => (i % 2 ? app.http : http2).post('/api/v1/wallet/verify/', body)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 401).every((r) => r.body.error.code === 'nonce_used')).toBe(true);
  });

  it('rejects a signature over the bare nonce', async () => {
    const acct = newAccount();
    const n = await app.http.get(`/api/v1/wallet/nonce/${acct.address}/`);
    const signature = await acct.signMessage({ message: n.body.nonce });
    const r = await app.http.post('/api/v1/wallet/verify/', { address: acct.address, signature, nonce: n.body.nonce });
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe('signature_over_nonce');
  });

  it("rejects another address's nonce and a signature from another key", async () => {
    const a = newAccount();
    const b = newAccount();
    const na = await app.http.get(`/api/v1/wallet/nonce/${a.address}/`);
    const sigB = await b.signMessage({ message: na.body.message });
    const mismatch = await app.http.post('/api/v1/wallet/verify/', { address: b.address, signature: sigB, nonce: na.body.nonce });
    expect(mismatch.status).toBe(401);
    expect(mismatch.body.error.code).toBe('nonce_address_mismatch');
    const otherKey = await app.http.post('/api/v1/wallet/verify/', { address: a.address, signature: sigB, nonce: na.body.nonce });
    expect(otherKey.status).toBe(401);
    expect(otherKey.body.error.code).toBe('signature_invalid');
  });

  it('rejects an unknown and an expired nonce with distinct codes', async () => {
    const a = newAccount();
    const sig = await a.signMessage({ message: 'x' });
    const unknown = await app.http.post('/api/v1/wallet/verify/', { address: a.address, signature: sig, nonce: 'f'.repeat(32) });
    expect(unknown.body.error.code).toBe('nonce_unknown');
    const n = await app.http.get(`/api/v1/wallet/nonce/${a.address}/`);
    // Age the stored record past its one-hour validity (the record itself lives longer).
    const key = `${app.deps.config.QUEUE_PREFIX}:nonce:${n.body.nonce}`;
    const rec = JSON.parse((await app.deps.redis.get(key))!);
    rec.expiresAt = Date.now() - 1;
    await app.deps.redis.set(key, JSON.stringify(rec), 'KEEPTTL');
    const signature = await a.signMessage({ message: n.body.message });
    const expired = await app.http.post('/api/v1/wallet/verify/', { address: a.address, signature, nonce: n.body.nonce });
    expect(expired.status).toBe(401);
    expect(expired.body.error.code).toBe('nonce_expired');
  });
});

describe('credentials on requests', () => {
  it('401 auth_required without credentials', async () => {
    const r = await app.http.get('/api/v1/wallet/me/');
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe('auth_required');
  });

  it('accepts a Bearer JWT', async () => {
    const s = await app.session();
    const r = await app.http.get('/api/v1/wallet/me/', s.bearer);
    expect(r.status).toBe(200);
    expect(r.body.id).toBe(s.userId);
  });

  it('expired token -> 401 token_expired (bearer and cookie)', async () => {
    const s = await app.session();
    const expired = await signAccessToken(app.deps.config.JWT_SECRET, { userId: s.userId, address: s.address, roles: [] }, -10);
    const a = await app.http.get('/api/v1/wallet/me/', { authorization: `Bearer ${expired}` });
    expect(a.status).toBe(401);
    expect(a.body.error.code).toBe('token_expired');
    const b = await app.http.get('/api/v1/wallet/me/', { cookie: `access_token=${expired}` });
    expect(b.status).toBe(401);
    expect(b.body.error.code).toBe('token_expired');
  });

  it('tampered, alg:none and wrong-algorithm tokens -> 401 token_invalid', async () => {
    const s = await app.session();
    const [h, p, sig] = s.token.split('.');
    const payload = JSON.parse(Buffer.from(p, 'base64url').toString());
    payload.roles = ['staff'];
    const tampered = `${h}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${sig}`;
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${p}.`;
    const hs512 = await new SignJWT(payload).setProtectedHeader({ alg: 'HS512' }).sign(new TextEncoder().encode(app.deps.config.JWT_SECRET));
    const otherSecret = await signAccessToken('another-secret-another-secret-another-secret', { userId: s.userId, address: s.address, roles: ['staff'] });
    for (const t of [tampered, none, hs512, otherSecret, 'garbage']) {
      const r = await app.http.get('/api/v1/wallet/me/', { authorization: `Bearer ${t}` });
      expect(r.status).toBe(401);
      expect(r.body.error.code).toBe('token_invalid');
    }
  });

  it('malformed Authorization header -> 401', async () => {
    const r = await app.http.get('/api/v1/wallet/me/', { authorization: 'Basic abc' });
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe('authorization_malformed');
  });

  it('a stale cookie on a public route is ignored (anonymous), not an error', async () => {
    const r = await app.http.get('/readyz', { cookie: 'access_token=garbage' });
    expect(r.status).toBe(200);
  });
});

describe('refresh and logout', () => {
  it('rotates the refresh token; reusing an old one revokes the family', async () => {
    const s = await signIn(app.http);
    const r1 = await app.http.post('/api/v1/wallet/refresh/', { refresh_token: s.refreshToken });
    expect(r1.status).toBe(200);
    expect(r1.body.refresh_token).not.toBe(s.refreshToken);
    const me = await app.http.get('/api/v1/wallet/me/', { authorization: `Bearer ${r1.body.access_token}` });
    expect(me.status).toBe(200);
    // The thief replays the first token: the whole family dies, including r1's refresh token.
    const replay = await app.http.post('/api/v1/wallet/refresh/', { refresh_token: s.refreshToken });
    expect(replay.status).toBe(401);
    expect(replay.body.error.code).toBe('refresh_token_reused');
    const r2 = await app.http.post('/api/v1/wallet/refresh/', { refresh_token: r1.body.refresh_token });
    expect(r2.status).toBe(401);
    expect(r2.body.error.code).toBe('refresh_token_revoked');
  });

  it('refresh by cookie needs the trusted Origin', async () => {
    const s = await signIn(app.http);
    const cookie = `refresh_token=${s.refreshToken}`;
    const bad = await app.http.post('/api/v1/wallet/refresh/', {}, { cookie, origin: 'https://evil.example' });
    expect(bad.status).toBe(403);
    expect(bad.body.error.code).toBe('csrf_origin_mismatch');
    const good = await app.http.post('/api/v1/wallet/refresh/', {}, { cookie, origin: ORIGIN });
    expect(good.status).toBe(200);
  });

  it('rejects a missing or garbage refresh token', async () => {
    expect((await app.http.post('/api/v1/wallet/refresh/', {})).body.error.code).toBe('refresh_token_missing');
    expect((await app.http.post('/api/v1/wallet/refresh/', { refresh_token: 'nope' })).body.error.code).toBe('refresh_token_invalid');
    const s = await app.session();
    // An access token is not a refresh token.
    expect((await app.http.post('/api/v1/wallet/refresh/', { refresh_token: s.token })).body.error.code).toBe('refresh_token_invalid');
  });

  it('logout revokes the refresh family and clears cookies', async () => {
    const s = await signIn(app.http);
    const out = await app.http.post('/api/v1/wallet/logout/', { refresh_token: s.refreshToken });
    expect(out.status).toBe(200);
    expect(out.headers.getSetCookie().some((c) => c.startsWith('access_token=;') && c.includes('Max-Age=0'))).toBe(true);
    const r = await app.http.post('/api/v1/wallet/refresh/', { refresh_token: s.refreshToken });
    expect(r.status).toBe(401);
  });
});
