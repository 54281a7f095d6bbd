import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signAccessToken } from '../../src/identity/tokens.js';
import { BroadcasterHarness, connect, makeEvent, type TestClient } from '../support/broadcaster-harness.js';
import { quietFor } from '../support/wait.js';

let h: BroadcasterHarness;

beforeAll(async () => {
  h = await BroadcasterHarness.create();
});
afterAll(() => h.close());

/** Wait for every handshake and any capacity close, then split the clients. */
async function settle(clients: TestClient[]) {
  await Promise.all(clients.map((c) => c.opened.catch(() => undefined)));
  // Check window: a capacity close follows the handshake; a client still open after it was admitted.
  await quietFor(200);
  const refused = clients.filter((c) => c.closeInfo?.code === 4003);
  const open = clients.filter((c) => c.closeInfo === null && c.ws.readyState === c.ws.OPEN);
  return { refused, open };
}

describe('connection caps', () => {
  it('holds the global cap exactly under a burst of simultaneous connects', async () => {
    const srv = await h.start({ maxConnections: 20, maxPerIp: 1000 });
    const cookie = `access_token=${await signAccessToken(h.env.config.JWT_SECRET, { userId: 1, address: '0x1', roles: ['staff'] })}`;
    // Staff cookies take an asynchronous verification between the cap check and the upgrade.
    const burst = Array.from({ length: 35 }, (_, i) => connect(srv.url, i % 3 === 0 ? { cookie } : {}));
    const { refused, open } = await settle(burst);
    expect(open).toHaveLength(20);
    expect(refused).toHaveLength(15);
    expect(refused[0].closeInfo!.reason).toMatch(/capacity/);
    expect(srv.b.connections()).toBe(20);

    // The admitted ones work; a slot freed is a slot available.
    await h.publish(makeEvent('news.approved', 1));
    for (const c of open) await c.waitForEvents(1);
    await Promise.all(open.slice(0, 5).map((c) => c.close()));
    await open[5].waitFor(() => srv.b.connections() === 15, 'slots to be released');
    const again = await settle(Array.from({ length: 7 }, () => connect(srv.url)));
    expect(again.open).toHaveLength(5);
    expect(again.refused).toHaveLength(2);
    await srv.close();
  });

  it('caps connections per client address', async () => {
    const srv = await h.start({ maxConnections: 100, maxPerIp: 3 });
    const { refused, open } = await settle(Array.from({ length: 5 }, () => connect(srv.url, { localAddress: '127.0.0.1' })));
    expect(open).toHaveLength(3);
    expect(refused).toHaveLength(2);
    expect(refused[0].closeInfo!.reason).toMatch(/too many connections from this address/);
    // Another address has its own allowance.
    const other = await settle(Array.from({ length: 3 }, () => connect(srv.url, { localAddress: '127.0.0.2' })));
    expect(other.open).toHaveLength(3);
    await srv.close();
  });

  it('does not count refused handshakes', async () => {
    const srv = await h.start({ maxConnections: 2, maxPerIp: 2 });
    const bad = Array.from({ length: 5 }, () => connect(srv.url, { origin: 'http://evil.example' }));
    await Promise.all(bad.map((c) => c.opened.catch(() => undefined)));
    expect(bad.every((c) => c.rejectedStatus === 403)).toBe(true);
    const { open } = await settle([connect(srv.url), connect(srv.url)]);
    expect(open).toHaveLength(2);
    await srv.close();
  });

  it('ignores X-Forwarded-For unless TRUST_PROXY is set', async () => {
    const srv = await h.start({ maxConnections: 100, maxPerIp: 2 });
    const xff = ['203.0.113.1', '203.0.113.2', '203.0.113.3'];
    const { open, refused } = await settle(xff.map((ip) => connect(srv.url, { headers: { 'x-forwarded-for': ip } })));
    expect(open).toHaveLength(2);
    expect(refused).toHaveLength(1);
    await srv.close();
  });

  it('counts the address the trusted proxy appended to X-Forwarded-For', async () => {
    const srv = await h.start({ maxConnections: 100, maxPerIp: 2, trustProxy: true });
    const distinct = await settle(['203.0.113.1', '203.0.113.2', '203.0.113.3'].map((ip) => connect(srv.url, { headers: { 'x-forwarded-for': ip } })));
    expect(distinct.open).toHaveLength(3);
    // Entries a client puts in front of the proxy's own do not make it a new address.
    const forged = await settle(['6.6.6.6, 198.51.100.7', '7.7.7.7, 198.51.100.7', '8.8.8.8,198.51.100.7'].map((v) => connect(srv.url, { headers: { 'x-forwarded-for': v } })));
    expect(forged.open).toHaveLength(2);
    expect(forged.refused).toHaveLength(1);
    await srv.close();
  });
});
