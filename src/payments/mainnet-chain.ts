/**
 * Ethereum mainnet's chain definition, alone in this module so that mainnet.ts can import it when the
 * first fallback payment arrives: `viem/chains` defines every chain viem knows (about 740 modules,
 * most of a process's start-up module loading), and a process that takes no fallback payment never
 * needs it.
 */
export { mainnet } from 'viem/chains';
