/**
 * Fault drill: SIGKILL a worker while it settles x402 payments. Paid intel reports are bought with
 * real EIP-3009 signatures; the settle-payment jobs call a local facilitator (the test suite's,
 * speaking the real protocol) through a relay that lets each settlement happen but holds the answer
 * back, so the worker dies after the transfer went through and before it heard so (the worst
 * moment). A second worker retries. Goal: every payment ends `settled`, each authorization was
 * settled on the "chain" once, no payer suspended, nothing marked failed.
 *
 *   npx tsx scripts/drills/payment-kill.ts [--payments 5]
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from '@x402/core/http';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { QueueClient } from '../../src/platform/queue.js';
import { startFacilitator } from '../../test/support/facilitator-server.js';
import { signedHeader } from '../../test/support/x402.js';
import { sleep, Stack, type StackOptions } from './lib/stack.js';
import { asyncListener } from '../../src/platform/http/listener.js';
import { jobs } from '../../jobs/index.js';

export interface PaymentKillReport {
  payments: number;
  paid: number;
  settlesHeldWhenKilled: number;
  facilitatorSettles: number;
  states: Record<string, number>;
  suspendedPayers: number;
  recoveryMs: number | null;
  lost: string[];
}

/** Forwards to the facilitator at once, but holds /settle answers for `holdMs`. */
async function startRelay(target: string, holdMs: number) {
  let held = 0;
  const server = http.createServer(
    asyncListener(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const upstream = await fetch(target + req.url, {
        method: req.method,
        headers: { 'content-type': 'application/json' },
        body: req.method === 'POST' ? Buffer.concat(chunks) : undefined,
      });
      const body = Buffer.from(await upstream.arrayBuffer());
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' });
        res.end(body);
      };
      if ((req.url ?? '').startsWith('/settle')) {
        held++;
        setTimeout(send, holdMs);
      } else send();
    }),
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    held: () => held,
    setHold: (ms: number) => (holdMs = ms),
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

export async function runPaymentKillDrill(opts: { payments?: number; stack?: StackOptions; log?: (l: string) => void } = {}): Promise<PaymentKillReport> {
  const log = opts.log ?? ((l: string) => process.stderr.write(`[payment-kill] ${l}\n`));
  const P = opts.payments ?? 5;
  const fac = await startFacilitator({ network: 'eip155:84532' });
  const relay = await startRelay(fac.url, 8000);
  const stack = await Stack.start({
    ...opts.stack,
    env: {
      JOB_LOCK_MS: '2000',
      JOB_WAIT_MS: '5000',
      X402_PAY_TO: '0x' + '77'.repeat(20),
      X402_NETWORK: 'eip155:84532',
      X402_FACILITATOR_URL: relay.url,
      X402_FACILITATOR_TIMEOUT_MS: '20000',
      // The drill kills the worker that settles: the deferred mode, where settlement is the job's.
      X402_SETTLEMENT_MODE: 'deferred',
      ...opts.stack?.env,
    },
    log,
  });
  const queue = new QueueClient(jobs, stack.redis, stack.env.REDIS_URL, stack.prefix);
  const lost: string[] = [];
  try {
    await Promise.all([stack.spawn('web'), stack.spawn('worker')]);
    const paymentIds: string[] = [];
    for (let i = 0; i < P; i++) {
      const first = await fetch(`${stack.webUrl}/api/v1/intel/report/`);
      await first.body?.cancel();
      const required = decodePaymentRequiredHeader(first.headers.get('payment-required')!);
      const header = await signedHeader(privateKeyToAccount(generatePrivateKey()), required.accepts[0]);
      const paid = await fetch(`${stack.webUrl}/api/v1/intel/report/`, { headers: { 'payment-signature': header } });
      await paid.body?.cancel();
      if (paid.status !== 200) {
        lost.push(`payment ${i}: report answered ${paid.status}`);
        continue;
      }
      paymentIds.push((decodePaymentResponseHeader(paid.headers.get('payment-response')!).extra as { payment_id: string }).payment_id);
    }
    const deadline = Date.now() + 20_000;
    while (relay.held() < paymentIds.length && Date.now() < deadline) await sleep(100);
    const w1 = stack.procs.find((p) => p.type === 'worker')!;
    log(`SIGKILL ${w1.name} with ${relay.held()} settlements done at the facilitator but unanswered`);
    const heldAtKill = relay.held();
    await w1.stop('SIGKILL');
    const killedAt = Date.now();
    relay.setHold(0);
    await stack.spawn('worker');
    let recoveryMs: number | null = null;
    const until = Date.now() + 60_000;
    for (;;) {
      const rows = await stack.db
        .selectFrom('payments')
        .select(['id', 'state'])
        .where('id', 'in', paymentIds.length ? paymentIds : ['-'])
        .execute();
      if (rows.length === paymentIds.length && rows.every((r) => r.state === 'settled' || r.state === 'failed')) {
        recoveryMs = Date.now() - killedAt;
        break;
      }
      if (Date.now() > until) break;
      await sleep(200);
    }
    const rows = await stack.db
      .selectFrom('payments')
      .select(['id', 'state', 'payer', 'last_error'])
      .where('id', 'in', paymentIds.length ? paymentIds : ['-'])
      .execute();
    const states: Record<string, number> = {};
    for (const r of rows) states[r.state] = (states[r.state] ?? 0) + 1;
    const nonces = new Set(fac.settles.map((s) => s.paymentPayload.payload.authorization.nonce));
    const suspended = (await Promise.all(rows.map((r) => stack.redis.exists(`${stack.prefix}:pay:suspended:${String(r.payer).toLowerCase()}`)))).filter(Boolean).length;
    const failed = rows.filter((r) => r.state !== 'settled');
    if (failed.length)
      lost.push(
        `${failed.length} payments settled at the facilitator but recorded as ${failed
          .map((r) => `${r.state} (${r.last_error})`)
          .slice(0, 2)
          .join('; ')}`,
      );
    if (nonces.size !== paymentIds.length) lost.push(`${paymentIds.length} payments but ${nonces.size} distinct authorizations settled`);
    if (suspended) lost.push(`${suspended} payers suspended`);
    void queue;
    return {
      payments: P,
      paid: paymentIds.length,
      settlesHeldWhenKilled: heldAtKill,
      facilitatorSettles: fac.settles.length,
      states,
      suspendedPayers: suspended,
      recoveryMs,
      lost,
    };
  } finally {
    await queue.close();
    await stack.close();
    await relay.close();
    await fac.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { payments: { type: 'string' } } });
  const report = await runPaymentKillDrill({ payments: values.payments ? Number(values.payments) : undefined });
  console.log(JSON.stringify(report, null, 2));
  console.log(report.lost.length ? `LOST: ${report.lost.join('; ')}` : 'lost: nothing');
  process.exit(report.lost.length ? 1 : 0);
}
