import { describe, expect, test } from 'vitest';
import { ephemeralLow, freePort, portBand } from '../../scripts/lib/services.js';

describe('freePort', () => {
  test('concurrent test workers draw from disjoint bands below the ephemeral range', () => {
    const bands = [1, 2, 3, 8].map((k) => portBand(20_000, 32_768, String(k)));
    for (const b of bands) {
      expect(b.width).toBeGreaterThanOrEqual(1000);
      expect(b.from).toBeGreaterThanOrEqual(20_000);
      expect(b.from + b.width).toBeLessThanOrEqual(32_768);
    }
    for (let i = 0; i < bands.length; i++)
      for (let j = i + 1; j < bands.length; j++) {
        const [a, b] = [bands[i], bands[j]];
        expect(a.from + a.width <= b.from || b.from + b.width <= a.from).toBe(true);
      }
    // Worker 9 shares worker 1's band (at most 8 bands); outside a worker, the whole range.
    expect(portBand(20_000, 32_768, '9')).toEqual(bands[0]);
    expect(portBand(20_000, 32_768, undefined)).toEqual({ from: 20_000, width: 12_768 });
    expect(portBand(20_000, 32_768, 'x')).toEqual({ from: 20_000, width: 12_768 });
    // A range too narrow to split is shared.
    expect(portBand(20_000, 25_000, '2')).toEqual({ from: 20_000, width: 5000 });
  });

  test("the ports it hands out are in this worker's band, free, and never repeated", async () => {
    const band = portBand(20_000, ephemeralLow(), process.env.VITEST_POOL_ID);
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    expect(new Set(ports).size).toBe(ports.length);
    for (const p of ports) {
      expect(p).toBeGreaterThanOrEqual(band.from);
      expect(p).toBeLessThan(band.from + band.width);
    }
  });
});
