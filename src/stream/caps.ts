/**
 * Connection caps (spec Events, Connection: global 500, per IP 5). A slot is taken synchronously
 * in the upgrade handler, before anything asynchronous happens, so a burst of simultaneous
 * connects can never overshoot: the event loop runs one upgrade handler at a time.
 */

type CapsVerdict = { ok: true; release: () => void } | { ok: false; reason: string };

interface CapsLimits {
  maxTotal: number;
  maxPerIp: number;
}

export class ConnectionCaps {
  private total = 0;
  private readonly perIp = new Map<string, number>();

  constructor(private readonly limits: CapsLimits) {}

  /** Take a slot for `ip`, or say (as a close reason) which cap is full. */
  acquire(ip: string): CapsVerdict {
    if (this.total >= this.limits.maxTotal) {
      return { ok: false, reason: `server at capacity (${this.limits.maxTotal} connections)` };
    }
    const n = this.perIp.get(ip) ?? 0;
    if (n >= this.limits.maxPerIp) {
      return { ok: false, reason: `too many connections from this address (${this.limits.maxPerIp})` };
    }
    this.total++;
    this.perIp.set(ip, n + 1);
    let released = false;
    return {
      ok: true,
      release: () => {
        if (released) return;
        released = true;
        this.total--;
        const left = (this.perIp.get(ip) ?? 1) - 1;
        if (left > 0) this.perIp.set(ip, left);
        else this.perIp.delete(ip);
      },
    };
  }

  count(ip?: string): number {
    return ip === undefined ? this.total : (this.perIp.get(ip) ?? 0);
  }
}
