/**
 * Registration: an account of type bot or cyborg claims the latest `/register` command its bot
 * sent in the room, within AGENT_REGISTRATION_WINDOW_S, in one transaction with the row locks on
 * the account and the command.
 */
import type { Db } from '../platform/db.js';
import { DomainError } from '../platform/errors/index.js';
import {
  getAgentAccount,
  insertRegistration,
  latestRegistrationCommand,
  lockUserForRegistration,
  telegramIdentityTaken,
  updateAgentProfile,
  type AccountRow,
  type TrustEventRow,
} from './trust-queries.js';

interface RegisterInput {
  userId: number;
  operator: string;
  modelName: string;
  username: string;
  windowS: number;
}

type RegisterOutcome = { created: boolean; account: AccountRow; event: TrustEventRow | null; commandSentAt: Date | null };

const identityTaken = (username: string) => new DomainError('telegram_identity_taken', `@${username} is already bound to another account`);

/**
 * Claim the latest `/register` command of `username` for the caller. Idempotent: an account already
 * bound to that identity gets its record back (operator and model name updated).
 */
export async function claimRegistration(db: Db, input: RegisterInput): Promise<RegisterOutcome> {
  const username = input.username.replace(/^@/, '');
  try {
    return await db.transaction().execute(async (trx) => {
      const user = await lockUserForRegistration(trx, input.userId);
      if (!user) throw new DomainError('account_not_found', 'the account of this token no longer exists; sign in again');
      if (user.account_type !== 'bot' && user.account_type !== 'cyborg') {
        throw new DomainError('account_type_not_allowed', `agent chat is for accounts with account_type bot or cyborg; this account is ${user.account_type}`, {
          account_type: user.account_type,
        });
      }
      const existing = await getAgentAccount(trx, input.userId, true);
      if (existing) {
        if (existing.telegram_username.toLowerCase() !== username.toLowerCase()) {
          throw new DomainError('account_already_registered', `this account is already bound to @${existing.telegram_username}`, {
            telegram_bot_username: existing.telegram_username,
          });
        }
        const account = await updateAgentProfile(trx, input.userId, input.operator, input.modelName);
        return { created: false, account, event: null, commandSentAt: null };
      }
      const command = await latestRegistrationCommand(trx, username, input.windowS);
      if (!command) {
        throw new DomainError(
          'registration_command_not_found',
          `no /register command from @${username} has been seen in the room; have the bot send /register there, then call this within ${input.windowS} s`,
          {
            window_seconds: input.windowS,
          },
        );
      }
      if (!command.in_window) {
        throw new DomainError('registration_window_expired', `the last /register from @${username} is older than ${input.windowS} s; have the bot send /register again`, {
          command_sent_at: command.sent_at.toISOString(),
          window_seconds: input.windowS,
        });
      }
      if (command.claim_address && command.claim_address !== user.wallet_address) {
        throw new DomainError('registration_claim_mismatch', "the /register command names another account's wallet address");
      }
      if (await telegramIdentityTaken(trx, command.telegram_user_id)) throw identityTaken(username);
      const { account, event } = await insertRegistration(trx, input, command);
      return { created: true, account, event, commandSentAt: command.sent_at };
    });
  } catch (err) {
    // Two accounts claiming one identity at the same moment: the unique index decides.
    if ((err as { code?: string }).code === '23505') throw identityTaken(username);
    throw err;
  }
}
