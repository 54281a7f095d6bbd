/**
 * What the kernel says about a process (Linux /proc): CPU time of a process, of a process and its
 * children, of the whole machine; resident memory of a process tree. The benchmarks' readings of
 * the processes the harness starts.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Kernel clock ticks per second for /proc/<pid>/stat utime/stime (USER_HZ, 100 on Linux). */
export const TICKS_PER_S = 100;

/** The fields of /proc/<pid>/stat after the command name (state is [0], ppid [1]); null once it is gone. */
function statFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** utime + stime of a process in ticks (`system`: stime alone, the kernel's share, e.g. socket writes); NaN once it is gone. */
export function cpuTicks(pid: number, which: 'all' | 'system' = 'all'): number {
  const f = statFields(pid);
  if (!f) return NaN;
  return which === 'system' ? Number(f[12]) : Number(f[11]) + Number(f[12]);
}

/** Every live process as [pid, ppid]. */
function processTable(): [number, number][] {
  const out: [number, number][] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    const f = statFields(Number(d));
    if (f) out.push([Number(d), Number(f[1])]);
  }
  return out;
}

/** Every process whose parent is `ppid` (one level: PostgreSQL's backends are the postmaster's children). */
export function childPids(ppid: number): number[] {
  return processTable()
    .filter(([, parent]) => parent === ppid)
    .map(([pid]) => pid);
}

/** A process and all its descendants. */
function descendants(root: number): number[] {
  const kids = new Map<number, number[]>();
  for (const [pid, ppid] of processTable()) kids.set(ppid, [...(kids.get(ppid) ?? []), pid]);
  const out: number[] = [];
  const walk = (p: number) => {
    out.push(p);
    for (const c of kids.get(p) ?? []) walk(c);
  };
  walk(root);
  return out;
}

/** VmRSS of a process in kB; 0 once it is gone. */
export function rssKb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** VmRSS in kB of a process tree. */
export function treeRssKb(root: number): number {
  return descendants(root).reduce((kb, pid) => kb + rssKb(pid), 0);
}

/**
 * CPU ticks of a process and its direct children (a PostgreSQL server: postmaster + backends +
 * autovacuum workers...), as a running total that never goes down: each reading remembers every pid
 * it saw, so a child that exits between two readings keeps what it had used when last seen (it
 * loses only what it used after that) and one that appears counts from zero.
 */
export class TreeMeter {
  private readonly seen = new Map<number, number>();

  constructor(private readonly root: number) {
    this.ticks();
  }

  ticks(): number {
    for (const pid of [this.root, ...childPids(this.root)]) {
      const t = cpuTicks(pid);
      if (Number.isFinite(t)) this.seen.set(pid, t);
    }
    let sum = 0;
    for (const t of this.seen.values()) sum += t;
    return sum;
  }
}

/** Busy and total CPU ticks of the whole machine, all CPUs (first line of /proc/stat). */
export function machineTicks(): { busy: number; total: number } {
  const [, ...v] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  const n = v.slice(0, 8).map(Number); // user nice system idle iowait irq softirq steal
  const idle = n[3] + n[4];
  const total = n.reduce((a, b) => a + b, 0);
  return { busy: total - idle, total };
}
