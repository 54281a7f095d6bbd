/**
 * Flags as staff see them (the staff API and the console page share this shape): the stable public
 * id, kind, accounts with their names, the detector's evidence and the decision in force.
 */
import { getAddress } from 'viem';
import type { Db } from '../platform/db.js';
import { isoTime as iso } from '../platform/iso-time.js';
import { accountOverride, accountReasons, flagPage, flagsOfAccount, membersOf, type DecisionFilter, type FlagRow, type MemberRow } from './flags-queries.js';
import { flagPublicId } from './rules/overrides.js';

interface StaffAccount {
  id: number;
  username: string | null;
  address: string | null;
  account_type: string | null;
  created_at: string | null;
}

export interface StaffFlag {
  id: string;
  month: string;
  kind: string;
  accounts: number;
  members: StaffAccount[];
  evidence: Record<string, number | string>;
  detected_at: string;
  decision: { decision: 'confirmed' | 'cleared'; note: string | null; decided_by: StaffAccount | null; decided_at: string } | null;
}

function accountOf(id: number, m: MemberRow | undefined): StaffAccount {
  return {
    id,
    username: m?.username ?? null,
    address: m ? getAddress(m.wallet_address) : null,
    account_type: m?.account_type ?? null,
    created_at: m ? iso(m.created_at) : null,
  };
}

async function shape(db: Db, rows: FlagRow[]): Promise<StaffFlag[]> {
  const ids = [...new Set(rows.flatMap((r) => [...r.members, ...(r.decided_by ? [r.decided_by] : [])]))];
  const users = await membersOf(db, ids);
  return rows.map((r) => ({
    id: flagPublicId(r),
    month: r.month,
    kind: r.kind,
    accounts: r.members.length,
    members: r.members.map((u) => accountOf(u, users.get(u))),
    evidence: r.evidence,
    detected_at: iso(r.created_at),
    decision: r.decision
      ? { decision: r.decision, note: r.note, decided_by: r.decided_by ? accountOf(r.decided_by, users.get(r.decided_by)) : null, decided_at: iso(r.decided_at!) }
      : null,
  }));
}

export const flagView = async (db: Db, row: FlagRow): Promise<StaffFlag> => (await shape(db, [row]))[0];

/** One page of a month's flags as staff see them. */
export async function listFlags(db: Db, month: string, f: { kind?: string; decision?: DecisionFilter }, page: number, perPage: number) {
  const { rows, count } = await flagPage(db, month, f, page, perPage);
  return { count, results: await shape(db, rows) };
}

/** One account's month: its flags, the decision on the account itself, and its items below full weight per reason. */
export async function accountView(db: Db, month: string, userId: number, user: MemberRow) {
  const [flags, override, reasons] = await Promise.all([flagsOfAccount(db, month, userId), accountOverride(db, month, userId), accountReasons(db, month, userId)]);
  const decider = override?.decided_by ? (await membersOf(db, [override.decided_by])).get(override.decided_by) : undefined;
  return {
    account: accountOf(userId, user),
    month,
    flags: await shape(db, flags),
    decision: override
      ? { decision: override.decision, note: override.note, decided_by: override.decided_by ? accountOf(override.decided_by, decider) : null, decided_at: iso(override.decided_at) }
      : null,
    discounted: reasons,
  };
}
