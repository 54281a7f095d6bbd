/**
 * fast-check for the property tests, set up so that a failure can be replayed. fc.assert's failure
 * message carries the run's `seed` and the counterexample's `path`
 * (`{ seed: 1626578427, path: "9:1:0", endOnFailure: true }`); run the failing test again with
 *
 *   FC_SEED=1626578427 FC_PATH=9:1:0 npx vitest run <file> -t '<test name>'
 *
 * and every property of that run starts from that seed and goes straight to that counterexample
 * (README, "Replaying a property-test failure"). Import fc from here, not from 'fast-check'.
 */
import fc from 'fast-check';

const seed = process.env.FC_SEED;
if (seed !== undefined && seed !== '') {
  if (!/^-?\d+$/.test(seed)) throw new Error(`FC_SEED must be an integer (the seed a failure printed), got ${JSON.stringify(seed)}`);
  const path = process.env.FC_PATH;
  fc.configureGlobal({ ...fc.readConfigureGlobal(), seed: Number(seed), ...(path ? { path } : {}), endOnFailure: true });
}

/**
 * The lines of a fast-check failure a report must keep: the verdict, its seed and path, the
 * counterexample (cut at 300 characters) and, when the property threw, what it threw (fast-check
 * keeps that in the error's `cause`, not in its message).
 */
export function replayLines(err: unknown): string {
  const lines = String((err as Error)?.message ?? err).split('\n');
  const where = lines.find((l) => /\bseed: -?\d+/.test(l));
  const example = lines.find((l) => l.startsWith('Counterexample: '));
  const cause = (err as { cause?: unknown })?.cause;
  const threw =
    cause === undefined
      ? null
      : `threw: ${cause instanceof Error ? `${cause.name}${(cause as { code?: string }).code ? ` ${(cause as { code?: string }).code}` : ''}: ${cause.message}` : String(cause)}`;
  return [
    lines[0],
    ...(where ? [where] : []),
    ...(threw ? [threw] : []),
    ...(example ? [example.length > 300 ? `${example.slice(0, 300)}...` : example] : []),
    'replay: FC_SEED=<seed> FC_PATH=<path> npx vitest run <file> -t <test name>',
  ].join(' | ');
}

export default fc;
