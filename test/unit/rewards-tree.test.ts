import { StandardMerkleTree } from '@openzeppelin/merkle-tree';
import fc from '../support/property.js';
import { bytesToHex, encodeAbiParameters, getAddress, keccak256 } from 'viem';
import { describe, expect, it } from 'vitest';
import { buildDropTree, leafHash, verifyDrop } from '../../src/rewards/rules/reward-tree.js';

const addr = (i: number) => getAddress(`0x${(i * 2654435761 + 17).toString(16).padStart(40, 'c').slice(-40)}`);

describe('drop tree', () => {
  it('equals StandardMerkleTree.of(values, [address, uint256]): same root, same proofs', async () => {
    for (const n of [1, 2, 3, 4, 7, 16, 33]) {
      const leaves = Array.from({ length: n }, (_, i) => ({ address: addr(i), amount: BigInt(i + 1) * 10n ** 18n + BigInt(i) }));
      const ours = await buildDropTree(leaves);
      const ref = StandardMerkleTree.of(
        leaves.map((l) => [l.address, l.amount.toString()]),
        ['address', 'uint256'],
      );
      expect(ours.root).toBe(ref.root);
      leaves.forEach((_, i) => expect(ours.proofs[i]).toEqual(ref.getProof(i)));
    }
  });

  it('the leaf is keccak256(keccak256(abi.encode(address, uint256))) as OpenZeppelin MerkleProof expects', () => {
    const a = addr(5);
    const amount = 123n * 10n ** 18n;
    const expected = keccak256(keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [a, amount])));
    expect(bytesToHex(leafHash(a, amount))).toBe(expected);
  });

  it('every proof verifies against the root; a changed amount or address does not', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.integer({ min: 1, max: 1e9 }), { minLength: 1, maxLength: 40 }), async (ids) => {
        const leaves = ids.map((id) => ({ address: addr(id), amount: BigInt(id) * 1000n }));
        const t = await buildDropTree(leaves);
        leaves.forEach((l, i) => expect(verifyDrop(t.root, l.address, l.amount, t.proofs[i])).toBe(true));
        expect(verifyDrop(t.root, leaves[0].address, leaves[0].amount + 1n, t.proofs[0])).toBe(false);
        if (leaves.length > 1) expect(verifyDrop(t.root, leaves[1].address, leaves[0].amount, t.proofs[0])).toBe(false);
      }),
      { numRuns: 30 },
    );
  });

  it('refuses an empty tree', async () => {
    await expect(buildDropTree([])).rejects.toThrow(/at least one leaf/);
  });
});
