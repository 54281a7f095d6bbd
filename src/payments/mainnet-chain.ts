/**
 * Ethereum mainnet's chain definition, alone in this module so that mainnet.ts can import it when the
 * first fallback payment arrives: `viem/chains` defines every chain viem knows (about 740 modules,
 * a third of those a web or worker process would load at start), and a process that takes no
 * fallback payment never needs it.
 */
export { mainnet } from 'viem/chains';
