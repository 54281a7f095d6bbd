/**
 * The `rewards` command group of the admin CLI against this file's own database: recording the DAO
 * allocation, recomputing leaderboards, and running a month's distribution by hand (summary table,
 * idempotent re-run), with their usage errors and exit codes.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useCliEnv } from '../support/cli.js';
import { insertArticle } from '../support/articles.js';

const t = useCliEnv();
const cli = t.run;

beforeAll(async () => {
  const users = await t.db
    .insertInto('users')
    .values([1, 2].map((i) => ({ wallet_address: `0x${String(i).repeat(40)}` })))
    .returning('id')
    .execute();
  const when = new Date(Date.UTC(2025, 2, 10));
  for (const u of users) await insertArticle(t.db, { submittedBy: u.id, createdAt: when, publishedAt: when });
});

describe('rewards commands', () => {
  it("records a month's allocation and shows what is in effect", async () => {
    const set = await cli('rewards', 'allocation', '2025-03', '50', '20.5', '19.5', '10', 'DAO vote 7');
    expect(set).toMatchObject({ code: 0, err: '' });
    expect(set.out).toContain('allocation for 2025-03: top_posters 50%, top_yappers 20.5%, top_voters 19.5%, top_editors 10%');
    const list = await cli('rewards', 'allocations');
    expect(list.out).toMatch(/2025-03\s+50%\s+20\.5%\s+19\.5%\s+10%\s+DAO vote 7/);
    const carried = await cli('rewards', 'allocations', '2025-05');
    expect(carried.out).toContain('2025-05: carried (from 2025-03)');
    expect((await cli('rewards', 'allocations', '2024-01')).out).toContain('2024-01: default');
  });

  it('rejects splits that do not add up, bad percentages and bad months with exit 2', async () => {
    const sum = await cli('rewards', 'allocation', '2025-04', '50', '20', '20', '20');
    expect(sum.code).toBe(2);
    expect(sum.err).toContain('add up to 100 percent (they add up to 110)');
    expect((await cli('rewards', 'allocation', '2025-04', '50', '20', '20', 'ten')).err).toContain('top_editors: "ten" is not a percentage');
    expect((await cli('rewards', 'allocation', '2025-04', '50.125', '20', '20', '9.875')).code).toBe(2);
    expect((await cli('rewards', 'distribute', '2025-3')).err).toContain('write it as YYYY-MM');
    expect((await cli('rewards', 'distribute')).code).toBe(2);
  });

  it('distributes a month by hand, prints a summary table, and a re-run changes nothing', async () => {
    const r = await cli('rewards', 'distribute', '2025-03');
    expect(r.code).toBe(0);
    expect(r.out).toContain('distributed 2025-03');
    expect(r.out).toMatch(/merkle root: 0x[0-9a-f]{64}/);
    expect(r.out).toContain('recipients:  2');
    // Only posters took part: 50% of the pool.
    expect(r.out).toContain('distributed: 500000 of 1000000 SQUID');
    expect(r.out).toMatch(/category\s+share\s+allocated\s+distributed\s+recipients/);
    expect(r.out).toMatch(/top_posters\s+50%\s+500000\s+500000\s+2/);
    expect(r.out).toMatch(/top_editors\s+10%\s+100000\s+0\s+0/);
    const root = /merkle root: (0x[0-9a-f]{64})/.exec(r.out)![1];
    const again = await cli('rewards', 'distribute', '2025-03');
    expect(again.code).toBe(0);
    expect(again.out).toContain('already distributed');
    expect(again.out).toContain(root);
    expect((await cli('rewards', 'show', '2025-03')).out).toContain(`root ${root}, 2 recipients`);
    // The allocation of a distributed month is final.
    const late = await cli('rewards', 'allocation', '2025-03', '25', '25', '25', '25');
    expect(late.code).toBe(1);
    expect(late.err).toContain('already distributed');
  });

  it('refuses to distribute a month that is not over, and recomputes leaderboards on demand', async () => {
    const now = new Date();
    const current = `${now.getUTCFullYear()}-${String(now.getUTCMonth() + 1).padStart(2, '0')}`;
    const r = await cli('rewards', 'distribute', current);
    expect(r.code).toBe(1);
    expect(r.err).toContain('is not over yet');
    const lb = await cli('rewards', 'leaderboards', '2025-03');
    expect(lb.out).toMatch(/2025-03\s+frozen \(unchanged\)/);
    const lb2 = await cli('rewards', 'leaderboards', '2025-04');
    expect(lb2.out).toMatch(/2025-04\s+computed\s+0/);
    expect((await cli('rewards', 'show', '2025-04')).err).toContain('has not been distributed');
  });
});
