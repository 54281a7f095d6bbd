/** A monthly reward drop as the API answers it (earnings summary and GET /rewards/drops/...). */
import { formatTokens, type recentDropsOf } from '../rewards/index.js';

export function toDrop(d: Awaited<ReturnType<typeof recentDropsOf>>[number]) {
  return {
    month: d.month,
    address: d.address,
    amount: d.amount,
    amount_squid: formatTokens(BigInt(d.amount)),
    breakdown: { top_posters: d.top_posters, top_yappers: d.top_yappers, top_voters: d.top_voters, top_editors: d.top_editors },
    merkle_root: d.merkle_root ?? '',
    proof: d.proof,
    distributed_at: d.created_at.toISOString(),
  };
}
