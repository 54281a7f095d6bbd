import { sql } from 'kysely';
import pg from 'pg';
import { benchStack } from '../scripts/bench/lib/bench-stack.js';
import { sharedRegistry, headlineTagging } from '../src/assets/index.js';
import { pageTitleUpdate } from '../src/articles/index.js';
import { readFileSync } from 'node:fs';

const stack = await benchStack('explain');
const titles = readFileSync('test/data/assets/headlines.jsonl', 'utf8').trim().split('\n').map((l) => JSON.parse(l).title as string).slice(0, 400);
const n = 300;
const r = await sql<{ id: number }>`INSERT INTO articles (slug, headline, headline_source, url, normalized_url, source, status)
  SELECT 'x-' || g, 'provisional ' || g, 'provisional', 'https://e.x/' || g, 'https://e.x/' || g, 'e.x', 'submitted' FROM generate_series(1, ${n}) g RETURNING id`.execute(stack.db);
const ids = r.rows.map((x) => x.id);
const proto = pg.Client.prototype as unknown as { query: (...a: unknown[]) => unknown };
const orig = proto.query;
const stats: Record<string, { plan: number[]; exec: number[] }> = { plain: { plan: [], exec: [] }, tagged: { plan: [], exec: [] } };
let mode = 'plain';
proto.query = function (this: unknown, ...args: unknown[]) {
  const q = args[0] as { text?: string } | string;
  const text = typeof q === 'string' ? q : q.text;
  if (text && /^(\s*with t as|update "articles")/i.test(text)) {
    const p = orig.apply(this, [`EXPLAIN (ANALYZE, FORMAT JSON) ${text}`, ...(args.slice(1) as unknown[])]) as Promise<{ rows: { 'QUERY PLAN': { 'Planning Time': number; 'Execution Time': number }[] }[] }>;
    return p.then((res) => {
      const plan = res.rows[0]['QUERY PLAN'][0];
      stats[mode].plan.push(plan['Planning Time']);
      stats[mode].exec.push(plan['Execution Time']);
      return { rows: [], rowCount: 0, fields: [] };
    });
  }
  return orig.apply(this, args);
};
const med = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
for (const [i, id] of ids.entries()) {
  mode = i % 2 ? 'tagged' : 'plain';
  const title = titles[i % titles.length];
  await stack.db.transaction().execute(async (trx) => {
    if (mode === 'plain') await pageTitleUpdate(trx, id, title).execute();
    else { const w = await headlineTagging(stack.db, sharedRegistry, title); await w(trx, id, title).catch(() => undefined); }
  });
}
proto.query = orig;
for (const [k, v] of Object.entries(stats)) console.log(k, 'planning median', med(v.plan.slice(20)).toFixed(3), 'ms; execution median', med(v.exec.slice(20)).toFixed(3), 'ms', v.plan.length);
await stack.close();
