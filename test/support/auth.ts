/**
 * Signing in for tests. `signIn` walks the real wallet flow (nonce -> personal_sign with a viem
 * account -> verify); `sessionFor` makes a user with roles and signs its access token directly,
 * for tests about something other than sign-in.
 */
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { signAccessToken, type Role } from '../../src/identity/tokens.js';
import type { Db } from '../../src/platform/db.js';
import type { TestResponse } from './request.js';

interface Http {
  get(path: string, headers?: Record<string, string>): Promise<TestResponse>;
  post(path: string, body?: unknown, headers?: Record<string, string>): Promise<TestResponse>;
}

export function newAccount(): PrivateKeyAccount {
  return privateKeyToAccount(generatePrivateKey());
}

export async function signIn(http: Http, account: PrivateKeyAccount = newAccount()) {
  const n = await http.get(`/api/v1/wallet/nonce/${account.address}/`);
  if (n.status !== 200) throw new Error(`nonce failed: ${n.status} ${n.text}`);
  const signature = await account.signMessage({ message: n.body.message });
  const v = await http.post('/api/v1/wallet/verify/', { address: account.address, signature, nonce: n.body.nonce });
  if (v.status !== 200) throw new Error(`verify failed: ${v.status} ${v.text}`);
  const cookies = v.headers.getSetCookie().map((c) => c.split(';')[0]);
  return { account, body: v.body, cookie: cookies.join('; '), accessToken: v.body.access_token as string, refreshToken: v.body.refresh_token as string };
}

export interface Session {
  userId: number;
  address: string;
  token: string;
  /** Bearer headers (no cross-site check applies). */
  bearer: Record<string, string>;
  /** Cookie headers with the trusted Origin, as a browser on our site sends them. */
  cookie: (origin: string) => Record<string, string>;
}

export async function sessionFor(db: Db, secret: string, opts: { roles?: Role[]; accountType?: 'human' | 'cyborg' | 'bot'; username?: string } = {}): Promise<Session> {
  const account = newAccount();
  const user = await db
    .insertInto('users')
    .values({
      wallet_address: account.address.toLowerCase(),
      roles: opts.roles ?? [],
      account_type: opts.accountType ?? 'human',
      username: opts.username ?? null,
    })
    .returning(['id', 'wallet_address'])
    .executeTakeFirstOrThrow();
  const token = await signAccessToken(secret, { userId: user.id, address: user.wallet_address, roles: opts.roles ?? [] });
  return {
    userId: user.id,
    address: user.wallet_address,
    token,
    bearer: { authorization: `Bearer ${token}` },
    cookie: (origin) => ({ cookie: `access_token=${token}`, origin }),
  };
}
