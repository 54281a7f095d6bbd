/** Minimal server-rendered HTML for the host-root API-key pages. Every interpolated value is escaped. */

const ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function esc(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ESC[c]);
}

/** The start of every server-rendered page up to its own <head> lines: UTF-8, mobile viewport, no Referer. */
export const HTML_HEAD_START = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">`;

export function page(title: string, body: string): string {
  return `${HTML_HEAD_START}
<title>${esc(title)}</title>
<style>
  body { font-family: system-ui, sans-serif; max-width: 46rem; margin: 2rem auto; padding: 0 1rem; color: #1b1f24; }
  label { display: block; margin-top: 1rem; font-weight: 600; }
  input, textarea { width: 100%; padding: .5rem; font: inherit; box-sizing: border-box; }
  button { margin-top: 1.2rem; padding: .6rem 1.2rem; font: inherit; cursor: pointer; }
  .key { font-family: ui-monospace, monospace; background: #f3f4f6; padding: .75rem; word-break: break-all; border: 1px solid #d0d7de; }
  .warn { background: #fff8c5; border: 1px solid #d4a72c; padding: .75rem; }
  .error { color: #cf222e; }
  table { border-collapse: collapse; } td, th { padding: .25rem .75rem .25rem 0; text-align: left; }
</style>
</head>
<body>
${body}
</body>
</html>`;
}

/** A small bar chart of daily counts as inline SVG (no scripts, no external assets). */
export function usageChart(days: { day: string; count: number }[], width = 600, height = 120): string {
  const max = Math.max(1, ...days.map((d) => d.count));
  const bw = width / days.length;
  const bars = days
    .map((d, i) => {
      const h = Math.round((d.count / max) * (height - 20));
      return `<rect x="${(i * bw + 1).toFixed(1)}" y="${height - 15 - h}" width="${(bw - 2).toFixed(1)}" height="${h}" fill="#0969da"><title>${esc(d.day)}: ${d.count}</title></rect>`;
    })
    .join('');
  const first = esc(days[0]?.day ?? '');
  const last = esc(days[days.length - 1]?.day ?? '');
  return `<svg role="img" aria-label="Requests per day, last ${days.length} days" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" xmlns="http://www.w3.org/2000/svg">${bars}<text x="0" y="${height - 2}" font-size="10">${first}</text><text x="${width}" y="${height - 2}" font-size="10" text-anchor="end">${last}</text></svg>`;
}
