/**
 * agent-trust-review (clock, every 10 minutes): sandbox_write agents whose violations aged out of
 * the rolling window (fewer than 3 left) return to full_write, and open handshake challenges more
 * than a minute past their deadline are expired (a safety net for expiry jobs lost with Redis).
 */
import { reviewTrust } from '../src/agent-chat/index.js';
import { defineSweep } from './define.js';

export const job = defineSweep({
  name: 'agent-trust-review',
  async run(deps) {
    return reviewTrust(deps);
  },
});
