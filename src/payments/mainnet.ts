/**
 * The mainnet fallback (spec: Paid access, "stablecoin transfer"): the client already sent USDC or
 * USDT on Ethereum mainnet and names the transaction (X-Payment-Tx) and its address (X-Payment-From).
 * Accepted only when the receipt from ETH_RPC_URL (chain id 1) shows: status success, at least
 * MAINNET_MIN_CONFIRMATIONS confirmations (latest - block + 1), and Transfer logs of USDC/USDT from
 * X-Payment-From to payTo summing to at least the price. Each hash pays once (replay guard).
 * Known limit, inherent in this method: the chain is public, so whoever quotes a qualifying
 * (hash, from) first gets the call; x402 signatures do not have this problem.
 */
import { createPublicClient, getAddress, http, parseEventLogs, erc20Abi, TransactionReceiptNotFoundError, type Address, type Hex, type PublicClient } from 'viem';
import { PaymentRejection, reject, unavailable } from './errors.js';
import { MAINNET_CHAIN_ID, MAINNET_STABLECOINS } from './requirements.js';

const TX_HASH = /^0x[0-9a-fA-F]{64}$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

interface MainnetTransfer {
  txHash: Hex;
  payer: Address;
  token: Address;
  symbol: string;
  amount: bigint;
  blockNumber: bigint;
  confirmations: bigint;
}

export function parseFallbackHeaders(txHeader: string, fromHeader: string): { txHash: Hex; from: Address } {
  if (!TX_HASH.test(txHeader.trim())) {
    throw reject('payment_invalid_encoding', 'X-Payment-Tx must be a transaction hash (0x + 64 hex digits)', 'invalid_payload', { header: 'X-Payment-Tx' });
  }
  if (!ADDRESS.test(fromHeader.trim())) {
    throw reject('payment_invalid_encoding', 'X-Payment-From must be the sending address (0x + 40 hex digits)', 'invalid_payload', { header: 'X-Payment-From' });
  }
  return { txHash: txHeader.trim().toLowerCase() as Hex, from: getAddress(fromHeader.trim()) };
}

export class MainnetVerifier {
  private readonly client: PublicClient;
  private chainChecked = false;

  constructor(
    rpcUrl: string,
    private readonly minConfirmations: number,
    timeoutMs = 10_000,
  ) {
    // No chain definition: the verifier asks the node for its chain id itself, and reads receipts and
    // block numbers, which need none (viem/chains would load every chain viem knows at start).
    this.client = createPublicClient({ transport: http(rpcUrl, { timeout: timeoutMs, retryCount: 1 }), cacheTime: 0 }) as PublicClient;
  }

  private async rpc<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof TransactionReceiptNotFoundError) throw err;
      throw unavailable('payment_fallback_unavailable', `the Ethereum RPC failed (${what}); retry later`);
    }
  }

  /** Throws PaymentRejection unless the transaction pays `payTo` at least `minAmount` from `from`. */
  async verify(txHash: Hex, from: Address, payTo: Address, minAmount: bigint): Promise<MainnetTransfer> {
    if (!this.chainChecked) {
      const chainId = await this.rpc('eth_chainId', () => this.client.getChainId());
      if (chainId !== MAINNET_CHAIN_ID) throw unavailable('payment_fallback_unavailable', `ETH_RPC_URL serves chain ${chainId}, not Ethereum mainnet`);
      this.chainChecked = true;
    }
    let receipt;
    try {
      receipt = await this.rpc('eth_getTransactionReceipt', () => this.client.getTransactionReceipt({ hash: txHash }));
    } catch (err) {
      if (err instanceof TransactionReceiptNotFoundError) {
        throw reject('payment_tx_unknown', `no receipt for ${txHash} on Ethereum mainnet (unknown, or not mined yet)`, 'invalid_transaction_unknown', { tx: txHash });
      }
      throw err;
    }
    if (receipt.status !== 'success') throw reject('payment_tx_failed', `transaction ${txHash} reverted`, 'invalid_transaction_failed', { tx: txHash });

    const latest = await this.rpc('eth_blockNumber', () => this.client.getBlockNumber({ cacheTime: 0 }));
    const confirmations = latest >= receipt.blockNumber ? latest - receipt.blockNumber + 1n : 0n;
    if (confirmations < BigInt(this.minConfirmations)) {
      const missing = BigInt(this.minConfirmations) - confirmations;
      throw new PaymentRejection(
        'payment_tx_unconfirmed',
        `transaction ${txHash} has ${confirmations} of ${this.minConfirmations} confirmations; retry in about ${Number(missing) * 12} s`,
        'invalid_transaction_unconfirmed',
        {
          tx: txHash,
          confirmations: Number(confirmations),
          required: this.minConfirmations,
        },
        'refused',
        { 'Retry-After': String(Math.max(12, Number(missing) * 12)) },
      );
    }

    const transfers = parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs: receipt.logs, strict: true }).filter(
      (l) => MAINNET_STABLECOINS[l.address.toLowerCase()] && getAddress(l.args.from) === from && getAddress(l.args.to) === payTo,
    );
    if (transfers.length === 0) {
      throw reject('payment_tx_no_transfer', `transaction ${txHash} has no USDC or USDT transfer from ${from} to ${payTo}`, 'invalid_transaction_no_transfer', {
        tx: txHash,
        pay_to: payTo,
      });
    }
    // Several transfers in one transaction add up; USDC and USDT have the same decimals (6).
    const amount = transfers.reduce((s, l) => s + l.args.value, 0n);
    if (amount < minAmount) {
      throw reject('payment_insufficient', `transaction ${txHash} transfers ${amount} atomic units; the price is ${minAmount}`, 'invalid_transaction_insufficient', {
        tx: txHash,
        transferred: amount.toString(),
        required: minAmount.toString(),
      });
    }
    const token = getAddress(transfers[0].address);
    return { txHash, payer: from, token, symbol: MAINNET_STABLECOINS[token.toLowerCase()].symbol, amount, blockNumber: receipt.blockNumber, confirmations };
  }
}
