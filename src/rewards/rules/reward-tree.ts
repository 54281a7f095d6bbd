/**
 * The Merkle tree of a month's drops, in OpenZeppelin's "standard" format (@openzeppelin/merkle-tree
 * StandardMerkleTree with leaf encoding ['address', 'uint256']), so the root can be set on a claim
 * contract that checks proofs with OpenZeppelin's MerkleProof.verify:
 *
 *   leaf  = keccak256(bytes.concat(keccak256(abi.encode(account, amount))))
 *   node  = keccak256(sorted pair)          (commutative, as MerkleProof expects)
 *   leaves sorted ascending; array layout and proofs exactly as the library builds them.
 *
 * Why not StandardMerkleTree.of() itself: on this project's hardware it needs ~7 s to build and ~16 s
 * to produce proofs for 20,000 leaves (its sort compares leaves through BigInt hex round trips and
 * every getProof re-hashes and re-verifies), blocking the worker's event loop long enough to lose the
 * job lock. This builder makes the same tree in about a second; test/unit/rewards-tree.test.ts proves
 * it equal to StandardMerkleTree.of() (same root, same proofs), and buildDropTree() checks a sample of
 * its proofs with the library's StandardMerkleTree.verify() before anything is stored.
 */
import { StandardMerkleTree } from '@openzeppelin/merkle-tree';
import { bytesToHex, getAddress, hexToBytes, keccak256 } from 'viem';

export const LEAF_ENCODING = ['address', 'uint256'] as const;

interface TreeLeaf {
  address: string;
  amount: bigint;
}

interface DropTree {
  root: `0x${string}`;
  /** proofs[i] belongs to leaves[i] (input order). */
  proofs: `0x${string}`[][];
}

/** The standard leaf hash of (address, amount). */
export function leafHash(address: string, amount: bigint): Uint8Array {
  if (amount < 0n || amount >= 2n ** 256n) throw new RangeError('amount out of uint256 range');
  const enc = new Uint8Array(64);
  enc.set(hexToBytes(getAddress(address)), 12);
  enc.set(hexToBytes(`0x${amount.toString(16).padStart(64, '0')}`), 32);
  return keccak256(keccak256(enc, 'bytes'), 'bytes');
}

function nodeHash(a: Uint8Array, b: Uint8Array): Uint8Array {
  const buf = new Uint8Array(64);
  const [lo, hi] = Buffer.compare(a, b) <= 0 ? [a, b] : [b, a];
  buf.set(lo, 0);
  buf.set(hi, 32);
  return keccak256(buf, 'bytes');
}

const tick = () => new Promise<void>((r) => setImmediate(r));

/**
 * Build the tree. Yields to the event loop every `yieldEvery` hashes so a worker keeps renewing its
 * job lock while a large month is hashed.
 */
export async function buildDropTree(leaves: TreeLeaf[], opts: { yieldEvery?: number; verifySample?: number } = {}): Promise<DropTree> {
  if (leaves.length === 0) throw new RangeError('a tree needs at least one leaf');
  const yieldEvery = opts.yieldEvery ?? 2000;
  const hashed: { hash: Uint8Array; index: number }[] = [];
  for (let i = 0; i < leaves.length; i++) {
    hashed.push({ hash: leafHash(leaves[i].address, leaves[i].amount), index: i });
    if (i % yieldEvery === yieldEvery - 1) await tick();
  }
  hashed.sort((x, y) => Buffer.compare(x.hash, y.hash));
  const n = hashed.length;
  const tree: Uint8Array[] = new Array(2 * n - 1);
  const treeIndex = new Array<number>(n);
  hashed.forEach((h, leafIndex) => {
    tree[tree.length - 1 - leafIndex] = h.hash;
    treeIndex[h.index] = tree.length - 1 - leafIndex;
  });
  for (let i = tree.length - 1 - n, c = 0; i >= 0; i--, c++) {
    tree[i] = nodeHash(tree[2 * i + 1], tree[2 * i + 2]);
    if (c % yieldEvery === yieldEvery - 1) await tick();
  }
  const hex = tree.map((b) => bytesToHex(b));
  const proofs = treeIndex.map((ti) => {
    const proof: `0x${string}`[] = [];
    for (let i = ti; i > 0; i = Math.floor((i - 1) / 2)) proof.push(hex[i % 2 === 1 ? i + 1 : i - 1]);
    return proof;
  });
  const root = hex[0];

  // Cross-check with the reference implementation before the root is trusted.
  const sample = Math.min(n, opts.verifySample ?? 16);
  for (let k = 0; k < sample; k++) {
    const i = k === 0 ? 0 : k === 1 ? n - 1 : Math.floor((k * 7919) % n);
    const ok = StandardMerkleTree.verify(root, [...LEAF_ENCODING], [getAddress(leaves[i].address), leaves[i].amount.toString()], proofs[i]);
    if (!ok) throw new Error(`merkle self-check failed for leaf ${i}`);
  }
  return { root, proofs };
}

/** Verify one drop's proof against a root with the reference library. */
export function verifyDrop(root: string, address: string, amount: bigint | string, proof: string[]): boolean {
  return StandardMerkleTree.verify(root, [...LEAF_ENCODING], [getAddress(address), amount.toString()], proof);
}
