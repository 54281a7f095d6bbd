/**
 * One test file's app over HTTP: `useTestApp` gives the file (or the describe block it is called in)
 * its own deps (createTestDeps) and a client on createApp(deps) in beforeAll, signs in the named
 * users, and releases it all in afterAll.
 */
import { afterAll, beforeAll } from 'vitest';
import { createApp } from '../../src/app.js';
import { sessionFor, type Session } from './auth.js';
import { createTestDeps, type TestDeps } from './context.js';
import request from './request.js';

type TestHttp = ReturnType<typeof request>;
type SessionOptions = NonNullable<Parameters<typeof sessionFor>[2]>;

interface TestApp {
  deps: TestDeps;
  http: TestHttp;
  /** Makes a user with these roles on this app's database and signs its token (sessionFor). */
  session(opts?: SessionOptions): Promise<Session>;
}

/**
 * Registers beforeAll/afterAll for an app on its own database; its fields (and one session per key of
 * `sessions`, made in order) are set in beforeAll. `overrides` (config env) may be a function, read
 * then: for values an earlier beforeAll sets, such as a fake server's URL.
 */
export function useTestApp<S extends Record<string, SessionOptions>>(
  sessions?: S,
  overrides?: Record<string, string> | (() => Record<string, string>),
): TestApp & Record<keyof S, Session> {
  const app = { session: (opts) => sessionFor(app.deps.db, app.deps.config.JWT_SECRET, opts) } as TestApp & Record<string, Session>;
  beforeAll(async () => {
    app.deps = await createTestDeps(typeof overrides === 'function' ? overrides() : overrides);
    app.http = request(createApp(app.deps));
    for (const [name, opts] of Object.entries(sessions ?? {})) app[name] = await app.session(opts);
  });
  afterAll(async () => {
    await app.http?.close();
    await app.deps?.close();
  });
  return app as TestApp & Record<keyof S, Session>;
}
