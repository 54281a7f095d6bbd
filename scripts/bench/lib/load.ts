/**
 * A small closed-loop HTTP load generator, run as its own process so it does not share an event
 * loop with the server under test:  tsx scripts/bench/lib/load.ts <url> <seconds> <concurrency> [headers-json]
 * A `{n}` in the URL is replaced by a new 9-digit number on every request.
 * Prints one JSON line: {requests, rps, p50, p99, errors, statuses}.
 */
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { runJsonChild } from './child.js';

export interface LoadResult {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  statuses: Record<string, number>;
}

/**
 * One GET of `path` on `u`'s host over `agent`: when the response ends, its latency (ms) goes to
 * `into.lat` and its status is counted in `into.statuses`. Resolves either way; a request error calls `onError`.
 */
export function timedGet(
  agent: http.Agent,
  u: URL,
  path: string,
  headers: Record<string, string>,
  into: { lat: number[]; statuses: Record<string, number> },
  onError: () => void = () => undefined,
): Promise<void> {
  return new Promise<void>((resolve) => {
    const t0 = performance.now();
    const req = http.request({ agent, host: u.hostname, port: u.port, path, headers }, (res) => {
      res.resume();
      res.on('end', () => {
        into.lat.push(performance.now() - t0);
        into.statuses[res.statusCode!] = (into.statuses[res.statusCode!] ?? 0) + 1;
        resolve();
      });
    });
    req.on('error', () => {
      onError();
      resolve();
    });
    req.end();
  });
}

async function runLoad(url: string, seconds: number, concurrency: number, headers: Record<string, string> = {}): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const u = new URL(url);
  const lat: number[] = [];
  const statuses: Record<string, number> = {};
  let errors = 0;
  const until = performance.now() + seconds * 1000;
  // `{n}` in the URL (perhaps percent-encoded) becomes a different number on every request, from a
  // random start: every request then asks for something no cache has seen.
  const template = (u.pathname + u.search).replaceAll('%7Bn%7D', '{n}');
  const varying = template.includes('{n}');
  let n = Math.floor(Math.random() * 1e8);
  const one = () => timedGet(agent, u, varying ? template.replaceAll('{n}', String(n++).padStart(9, '0')) : template, headers, { lat, statuses }, () => errors++);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) await one();
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  lat.sort((a, b) => a - b);
  const q = (p: number) => lat[Math.min(lat.length - 1, Math.floor(p * lat.length))] ?? 0;
  return { requests: lat.length, rps: lat.length / elapsed, p50: q(0.5), p99: q(0.99), errors, statuses };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [url, seconds, concurrency, headers] = process.argv.slice(2);
  const r = await runLoad(url, Number(seconds ?? 5), Number(concurrency ?? 32), headers ? JSON.parse(headers) : {});
  process.stdout.write(JSON.stringify(r) + '\n');
}

/** Run the generator in a child process and parse its result. */
export function loadFromChild(url: string, seconds: number, concurrency: number, headers: Record<string, string> = {}): Promise<LoadResult> {
  return runJsonChild<LoadResult>(fileURLToPath(import.meta.url), [url, String(seconds), String(concurrency), JSON.stringify(headers)]);
}
