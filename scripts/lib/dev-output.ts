/**
 * Procfile-runner output for the dev launcher: every line of every process gets a coloured
 * `name  |` prefix. Pino JSON lines are rendered as `time LEVEL msg key=value...` (format `pretty`)
 * or passed through unchanged (format `json`); anything else is printed as it came.
 */
import readline from 'node:readline';
import type { Readable } from 'node:stream';

type LogFormat = 'pretty' | 'json';

const ansi = {
  reset: '\x1b[0m',
  bold: '\x1b[1m',
  dim: '\x1b[2m',
  red: '\x1b[31m',
  green: '\x1b[32m',
  yellow: '\x1b[33m',
  blue: '\x1b[34m',
  magenta: '\x1b[35m',
  cyan: '\x1b[36m',
  gray: '\x1b[90m',
} as const;

const nameColours = [ansi.cyan, ansi.magenta, ansi.green, ansi.yellow, ansi.blue];

const levels: Record<number, { label: string; colour: string }> = {
  10: { label: 'TRACE', colour: ansi.gray },
  20: { label: 'DEBUG', colour: ansi.gray },
  30: { label: 'INFO ', colour: ansi.green },
  40: { label: 'WARN ', colour: ansi.yellow },
  50: { label: 'ERROR', colour: ansi.red },
  60: { label: 'FATAL', colour: ansi.red + ansi.bold },
};

// Fields every pino line carries; the prefix and the level/time columns already say them.
const hidden = new Set(['level', 'time', 'pid', 'proc', 'name', 'hostname', 'msg', 'v']);

interface DevOutput {
  /** Print one line under `name`'s prefix. */
  line(name: string, text: string): void;
  /** Print every line of a child's stream under `name`'s prefix. */
  attach(name: string, stream: Readable): void;
}

export function createDevOutput(opts: { names: string[]; color: boolean; format: LogFormat; write?: (s: string) => void }): DevOutput {
  const write = opts.write ?? ((s: string) => void process.stdout.write(s));
  const width = Math.max(...opts.names.map((n) => n.length));
  const paint = (colour: string, s: string) => (opts.color ? `${colour}${s}${ansi.reset}` : s);
  const colourOf = new Map(opts.names.map((n, i) => [n, i === 0 ? ansi.bold : nameColours[(i - 1) % nameColours.length]]));

  function prefix(name: string) {
    return paint(colourOf.get(name) ?? ansi.bold, `${name.padEnd(width)} |`);
  }

  function render(text: string): string[] {
    if (opts.format === 'json' || !text.startsWith('{')) return [text];
    let rec: Record<string, unknown>;
    try {
      rec = JSON.parse(text);
    } catch {
      return [text];
    }
    if (typeof rec.level !== 'number' || typeof rec.msg !== 'string') return [text];
    const level = levels[rec.level] ?? { label: String(rec.level).padEnd(5), colour: '' };
    const at = typeof rec.time === 'string' || typeof rec.time === 'number' ? new Date(rec.time) : new Date();
    const time = paint(ansi.dim, at.toTimeString().slice(0, 8));
    const extra: string[] = [];
    const more: string[] = [];
    for (const [k, v] of Object.entries(rec)) {
      if (hidden.has(k) || v === undefined) continue;
      if (k === 'err' && v && typeof v === 'object') {
        const err = v as { message?: string; stack?: string };
        extra.push(`err=${quote(err.message ?? JSON.stringify(v))}`);
        if (err.stack)
          more.push(
            ...err.stack
              .split('\n')
              .slice(1)
              .map((l) => paint(ansi.dim, `    ${l.trim()}`)),
          );
        continue;
      }
      extra.push(`${k}=${typeof v === 'string' ? quote(v) : JSON.stringify(v)}`);
    }
    const head = `${time} ${paint(level.colour, level.label)} ${rec.msg}${extra.length ? ' ' + paint(ansi.dim, extra.join(' ')) : ''}`;
    return [head, ...more];
  }

  function line(name: string, text: string) {
    for (const l of render(text)) write(`${prefix(name)} ${l}\n`);
  }
  return {
    line,
    attach(name, stream) {
      readline.createInterface({ input: stream, crlfDelay: Infinity }).on('line', (l) => line(name, l));
    },
  };
}

function quote(s: string): string {
  return /[\s"=]/.test(s) || s === '' ? JSON.stringify(s) : s;
}
