/**
 * A local Ethereum JSON-RPC 2.0 endpoint on 127.0.0.1: eth_chainId, eth_blockNumber and
 * eth_getTransactionReceipt with receipts shaped like a mainnet node's (hex quantities, logs with
 * topics/data/indices, logsBloom...). Tests add transactions with ERC-20 Transfer logs and move the
 * chain head to control confirmations.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { encodeAbiParameters, pad, toHex, type Address, type Hex } from 'viem';
import { asyncListener } from '../../src/platform/http/listener.js';

const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
export const MAINNET_USDC = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48' as Address;
export const MAINNET_USDT = '0xdAC17F958D2ee523a2206206994597C13D831ec7' as Address;

interface TransferSpec {
  token: Address;
  from: Address;
  to: Address;
  value: bigint;
}

export interface JsonRpcServer {
  url: string;
  calls: { method: string; params: unknown[] }[];
  head: bigint;
  chainId: number;
  /** Add a mined transaction whose logs are these transfers; returns its hash. */
  addTransaction(t: { transfers: TransferSpec[]; blockNumber?: bigint; status?: 'success' | 'reverted'; from?: Address }): Hex;
  close(): Promise<void>;
}

const hex = (n: bigint | number) => toHex(n);

export async function startJsonRpc(opts: { chainId?: number; head?: bigint } = {}): Promise<JsonRpcServer> {
  const receipts = new Map<string, Record<string, unknown>>();
  const state = { head: opts.head ?? 21_000_000n, chainId: opts.chainId ?? 1 };
  const calls: { method: string; params: unknown[] }[] = [];

  function answer(method: string, params: unknown[]): unknown {
    switch (method) {
      case 'eth_chainId':
        return hex(state.chainId);
      case 'eth_blockNumber':
        return hex(state.head);
      case 'eth_getTransactionReceipt':
        return receipts.get(String(params[0]).toLowerCase()) ?? null;
      default:
        throw Object.assign(new Error(`the method ${method} does not exist/is not available`), { code: -32601 });
    }
  }

  const server = http.createServer(
    asyncListener(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      let body: any;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }));
        return;
      }
      const one = (r: any) => {
        calls.push({ method: r.method, params: r.params ?? [] });
        try {
          return { jsonrpc: '2.0', id: r.id, result: answer(r.method, r.params ?? []) };
        } catch (err: any) {
          return { jsonrpc: '2.0', id: r.id, error: { code: err.code ?? -32000, message: err.message } };
        }
      };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(Array.isArray(body) ? body.map(one) : one(body)));
    }),
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    calls,
    get head() {
      return state.head;
    },
    set head(v: bigint) {
      state.head = v;
    },
    get chainId() {
      return state.chainId;
    },
    set chainId(v: number) {
      state.chainId = v;
    },
    addTransaction(t) {
      const hash = `0x${randomBytes(32).toString('hex')}` as Hex;
      const blockNumber = t.blockNumber ?? state.head;
      const blockHash = `0x${randomBytes(32).toString('hex')}`;
      const txFrom = t.from ?? t.transfers[0]?.from ?? (`0x${randomBytes(20).toString('hex')}` as Address);
      const logs = t.transfers.map((tr, i) => ({
        address: tr.token.toLowerCase(),
        topics: [TRANSFER_TOPIC, pad(tr.from.toLowerCase() as Hex, { size: 32 }), pad(tr.to.toLowerCase() as Hex, { size: 32 })],
        data: encodeAbiParameters([{ type: 'uint256' }], [tr.value]),
        blockNumber: hex(blockNumber),
        transactionHash: hash,
        transactionIndex: '0x5',
        blockHash,
        logIndex: hex(i),
        removed: false,
      }));
      receipts.set(hash, {
        blockHash,
        blockNumber: hex(blockNumber),
        contractAddress: null,
        cumulativeGasUsed: '0x1b4e3c',
        effectiveGasPrice: '0x3b9aca00',
        from: txFrom.toLowerCase(),
        gasUsed: '0xfde8',
        logs,
        logsBloom: `0x${'0'.repeat(512)}`,
        status: t.status === 'reverted' ? '0x0' : '0x1',
        to: (t.transfers[0]?.token ?? MAINNET_USDC).toLowerCase(),
        transactionHash: hash,
        transactionIndex: '0x5',
        type: '0x2',
      });
      return hash;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
