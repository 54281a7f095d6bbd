/** The tools a developer runs beside `npm start`, each as its own OS process, as from a second terminal. */
import path from 'node:path';
import { entryArgs, startShell, type Proc } from '../../scripts/lib/harness.js';

/**
 * Run `script` (the admin CLI, `npm run migrate`, the demo seed) with only PATH, HOME and DATA_DIR
 * in its environment, nothing of this process's. It runs from the test run's JavaScript copy of the
 * sources (scripts/lib/prebuilt-js.ts): what is under test is how the tool finds the launcher's servers; the
 * CLI's start through tsx is test/e2e/cli-process.test.ts's.
 */
export function secondTerminal(name: string, script: string, args: string[], dataDir: string): Proc {
  return startShell(name, ['node', ...entryArgs(script, true), ...args].join(' '), {
    PATH: [path.dirname(process.execPath), '/usr/bin', '/bin'].join(':'),
    HOME: process.env.HOME ?? '/tmp',
    DATA_DIR: dataDir,
  });
}
