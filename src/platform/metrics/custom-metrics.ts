/**
 * Metrics computed at scrape time from shared state (Redis hashes, BullMQ counts, broadcaster
 * stats) rather than accumulated in this process. They are rendered in the Prometheus text format
 * next to prom-client's registry output.
 */

export interface MetricValue {
  labels?: Record<string, string | number>;
  value: number;
  /** Sample name when it differs from the metric name (histogram _bucket/_sum/_count). */
  metricName?: string;
}

export interface MetricObject {
  name: string;
  help: string;
  type: 'counter' | 'gauge' | 'histogram';
  values: MetricValue[];
}

const escapeLabel = (v: string) => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
const escapeHelp = (v: string) => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');

function formatValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return String(v);
}

export function renderMetrics(metrics: readonly MetricObject[]): string {
  const out: string[] = [];
  for (const m of metrics) {
    out.push(`# HELP ${m.name} ${escapeHelp(m.help)}`, `# TYPE ${m.name} ${m.type}`);
    for (const v of m.values) {
      const labels = Object.entries(v.labels ?? {});
      const ls = labels.length ? `{${labels.map(([k, val]) => `${k}="${escapeLabel(String(val))}"`).join(',')}}` : '';
      out.push(`${v.metricName ?? m.name}${ls} ${formatValue(v.value)}`);
    }
  }
  return out.length ? out.join('\n') + '\n' : '';
}

export const gauge = (name: string, help: string, values: MetricValue[]): MetricObject => ({ name, help, type: 'gauge', values });
export const counter = (name: string, help: string, values: MetricValue[]): MetricObject => ({ name, help, type: 'counter', values });
