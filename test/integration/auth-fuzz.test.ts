import fc from '../support/property.js';
import { expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';

const app = useTestApp(undefined, { ANON_DAILY_QUOTA: '1000000' });

// Arbitrary text, including control characters and non-ASCII, as clients might send it.
const junk = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.uint8Array({ maxLength: 120 }).map((b) => Buffer.from(b).toString('latin1')),
  fc.constant(''),
);
const headerSafe = (s: string) => s.replace(/[\r\n\0]/g, '').replace(/[^\x20-\x7e\x80-\xff]/g, '');

it('random address, signature, nonce: never a 5xx', async () => {
  await fc.assert(
    fc.asyncProperty(fc.oneof(junk, fc.constant(`0x${'1'.repeat(40)}`)), junk, junk, async (address, signature, nonce) => {
      const r = await app.http.post('/api/v1/wallet/verify/', { address, signature, nonce });
      expect(r.status).toBeGreaterThanOrEqual(400);
      expect(r.status).toBeLessThan(500);
      expect(typeof r.body.error.code).toBe('string');
    }),
    { numRuns: 150 },
  );
});

it('random path parameter for the nonce endpoint: never a 5xx', async () => {
  await fc.assert(
    fc.asyncProperty(junk, async (address) => {
      const r = await app.http.get(`/api/v1/wallet/nonce/${encodeURIComponent(address)}/`);
      expect(r.status).toBeLessThan(500);
    }),
    { numRuns: 150 },
  );
});

it('random bearer tokens, API keys and cookies: never a 5xx', async () => {
  await fc.assert(
    fc.asyncProperty(junk, fc.boolean(), fc.constantFrom('bearer', 'cookie', 'refresh'), async (token, asKey, where) => {
      const t = headerSafe((asKey ? 'squid_' : '') + token);
      const r =
        where === 'bearer'
          ? await app.http.get('/api/v1/wallet/me/', { authorization: `Bearer ${t}` })
          : where === 'cookie'
            ? await app.http.get('/api/v1/wallet/me/', { cookie: `access_token=${encodeURIComponent(t)}` })
            : await app.http.post('/api/v1/wallet/refresh/', { refresh_token: token });
      expect(r.status).toBeGreaterThanOrEqual(400);
      expect(r.status).toBeLessThan(500);
    }),
    { numRuns: 150 },
  );
});

it('random JSON bodies for verify: never a 5xx', async () => {
  await fc.assert(
    fc.asyncProperty(fc.jsonValue({ maxDepth: 3 }), async (body) => {
      const r = await app.http.post('/api/v1/wallet/verify/', JSON.stringify(body), { 'content-type': 'application/json' });
      expect(r.status).toBeLessThan(500);
    }),
    { numRuns: 100 },
  );
});
