/**
 * Every installed package runs on the lowest Node that package.json's `engines` allows (CI runs the
 * lowest of each supported major): no entry of package-lock.json has an `engines.node` range that
 * excludes it, so `npm install` on that Node warns of none (docs/operations.md: Node.js versions).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

interface Semver {
  minVersion(range: string): { version: string } | null;
  satisfies(version: string, range: string): boolean;
}
// semver is in node_modules as a dependency of the toolchain (npm's own range rules).
const semver = createRequire(import.meta.url)('semver') as Semver;

const json = (file: string) => JSON.parse(readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8'));

describe('engines', () => {
  it("no locked package's engines.node excludes the lowest Node package.json allows", () => {
    const pkg = json('package.json') as { engines: { node: string } };
    const lock = json('package-lock.json') as { packages: Record<string, { version?: string; engines?: { node?: string } | string[] }> };
    const lowest = semver.minVersion(pkg.engines.node)!.version;
    expect(lowest).toBe('20.19.0');
    const excluding = Object.entries(lock.packages).flatMap(([path, p]) => {
      const range = Array.isArray(p.engines) ? undefined : p.engines?.node;
      return range && !semver.satisfies(lowest, range) ? [`${path}@${p.version}: node ${range}`] : [];
    });
    expect(excluding).toEqual([]);
  });

  it('the check sees a range that excludes it', () => {
    expect(semver.satisfies('20.19.0', '>=22')).toBe(false);
    expect(semver.satisfies('20.19.0', '^20.19.0 || >=22.12.0')).toBe(true);
  });
});
