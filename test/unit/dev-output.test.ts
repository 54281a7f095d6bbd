import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createDevOutput } from '../../scripts/lib/dev-output.js';

function capture(format: 'pretty' | 'json', color = false) {
  const lines: string[] = [];
  const out = createDevOutput({ names: ['dev', 'web', 'worker'], color, format, write: (s) => lines.push(...s.split('\n').filter(Boolean)) });
  return { out, lines };
}

const pinoLine = (o: Record<string, unknown>) => JSON.stringify({ level: 30, time: '2026-11-22T10:11:12.000Z', pid: 1, proc: 'web', msg: 'hello', ...o });

describe('dev launcher output', () => {
  it('prefixes every line with the padded process name', () => {
    const { out, lines } = capture('pretty');
    out.line('web', 'plain text');
    out.line('worker', 'more');
    expect(lines).toEqual(['web    | plain text', 'worker | more']);
  });

  it('renders pino lines as time, level, message and the other fields', () => {
    const { out, lines } = capture('pretty');
    out.line('web', pinoLine({ url: 'http://127.0.0.1:8000', n: 3, tags: ['a'], note: 'two words' }));
    expect(lines[0]).toMatch(/^web {4}\| \d\d:\d\d:\d\d INFO {2}hello url=http:\/\/127\.0\.0\.1:8000 n=3 tags=\["a"\] note="two words"$/);
  });

  it('shows an error message inline and its stack below', () => {
    const { out, lines } = capture('pretty');
    out.line('worker', pinoLine({ level: 50, msg: 'job failed', err: { message: 'boom', stack: 'Error: boom\n    at run (x.ts:1:1)' } }));
    expect(lines[0]).toMatch(/ERROR job failed err=boom$/);
    expect(lines[1]).toBe('worker |     at run (x.ts:1:1)');
  });

  it('passes JSON through unchanged in json format, and non-pino JSON in any format', () => {
    const json = capture('json');
    json.out.line('web', pinoLine({}));
    expect(json.lines[0]).toBe(`web    | ${pinoLine({})}`);
    const pretty = capture('pretty');
    pretty.out.line('web', '{"not":"pino"}');
    expect(pretty.lines[0]).toBe('web    | {"not":"pino"}');
  });

  it('colours only when asked', () => {
    const { out, lines } = capture('pretty', true);
    out.line('web', 'x');
    expect(lines[0]).toContain('\x1b[');
  });

  it('splits a child stream into lines, including a last line without a newline', async () => {
    const { out, lines } = capture('pretty');
    const stream = new PassThrough();
    out.attach('web', stream);
    stream.write('one\ntw');
    stream.end('o');
    await new Promise((r) => setImmediate(r));
    expect(lines).toEqual(['web    | one', 'web    | two']);
  });
});
