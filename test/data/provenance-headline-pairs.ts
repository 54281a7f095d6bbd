/**
 * Labelled headline pairs for choosing and testing the headline-similarity threshold
 * (src/provenance/rules/headline-similarity.ts). `same: true` = the same story told in other words (as two
 * outlets or a wire and an editor would write it); `same: false` = different stories, most of them
 * deliberately close (same project, same verb, same template) because those are the pairs a
 * threshold gets wrong. The headlines are written for this set in the style of crypto news
 * outlets; they are not copied from any publication.
 */
export interface HeadlinePair {
  a: string;
  b: string;
  same: boolean;
}

export const headlinePairs: HeadlinePair[] = [
  // Same story, other words
  { same: true, a: 'Bitcoin tops $100,000 for the first time', b: 'BTC breaks above $100K for first time ever' },
  { same: true, a: 'SEC approves spot Bitcoin ETFs', b: 'US SEC approves first spot bitcoin exchange-traded funds' },
  { same: true, a: 'Ethereum Dencun upgrade goes live on mainnet', b: "Ethereum's Dencun upgrade activates on mainnet, cutting L2 fees" },
  { same: true, a: 'Binance CEO Changpeng Zhao pleads guilty, steps down', b: 'Changpeng Zhao steps down as Binance CEO after pleading guilty' },
  { same: true, a: 'Coinbase sued by SEC for operating unregistered exchange', b: 'SEC sues Coinbase, alleging it operated an unregistered exchange' },
  { same: true, a: 'Curve Finance pools exploited for $50 million via Vyper bug', b: 'Vyper compiler bug leads to $50M exploit of Curve pools' },
  { same: true, a: 'Tether mints another $1 billion USDT on Tron', b: 'Tether mints $1B USDT on Tron network' },
  { same: true, a: 'Solana network suffers five-hour outage', b: 'Solana suffers 5-hour network outage, block production halted' },
  { same: true, a: 'MicroStrategy buys 12,000 more bitcoin', b: 'MicroStrategy acquires additional 12,000 BTC' },
  { same: true, a: 'Ripple wins partial victory against SEC as judge rules XRP not a security', b: 'Judge rules XRP is not a security in partial win for Ripple against SEC' },
  { same: true, a: 'Uniswap Labs receives Wells notice from SEC', b: 'SEC sends Wells notice to Uniswap Labs' },
  { same: true, a: 'Arbitrum DAO approves gaming catalyst program', b: 'Arbitrum DAO passes vote on gaming catalyst program' },
  { same: true, a: 'FTX founder Sam Bankman-Fried sentenced to 25 years in prison', b: 'Sam Bankman-Fried gets 25-year prison sentence' },
  { same: true, a: 'Circle files for IPO in the United States', b: 'USDC issuer Circle files for US IPO' },
  { same: true, a: 'Ethereum price falls below $2,000', b: 'ETH drops under $2K' },
  { same: true, a: 'Grayscale wins lawsuit against SEC over Bitcoin ETF denial', b: 'Court rules in favor of Grayscale in SEC bitcoin ETF lawsuit' },
  { same: true, a: 'Mt. Gox begins repaying creditors in bitcoin and bitcoin cash', b: 'Mt Gox starts repayments to creditors in BTC and BCH' },
  { same: true, a: 'Kraken to pay $30 million to settle SEC staking charges', b: 'Kraken settles SEC charges over staking program for $30M' },
  { same: true, a: 'Polygon unveils zkEVM mainnet beta', b: 'Polygon launches zkEVM mainnet beta' },
  { same: true, a: 'Celsius Network files for bankruptcy', b: 'Crypto lender Celsius files for Chapter 11 bankruptcy' },
  { same: true, a: 'Robinhood to acquire Bitstamp for $200 million', b: 'Robinhood agrees to buy crypto exchange Bitstamp in $200M deal' },
  { same: true, a: 'Bitcoin halving completes at block 840,000', b: 'Fourth bitcoin halving done at block height 840,000' },
  { same: true, a: 'Lido DAO votes to sunset Polygon staking', b: 'Lido to wind down staking on Polygon after DAO vote' },
  { same: true, a: 'PayPal launches PYUSD stablecoin', b: 'PayPal debuts its own stablecoin, PayPal USD (PYUSD)' },
  { same: true, a: 'Hackers drain $600 million from Poly Network', b: 'Poly Network hacked for over $600M' },
  { same: true, a: 'El Salvador makes Bitcoin legal tender', b: 'Bitcoin becomes legal tender in El Salvador' },
  { same: true, a: 'BlackRock files for spot Ethereum ETF', b: 'BlackRock submits filing for spot ether ETF' },
  { same: true, a: 'Starknet airdrop goes live for eligible users', b: 'Starknet STRK airdrop now live' },
  { same: true, a: 'Coinbase Base mainnet opens to the public', b: "Coinbase's Base network launches to public on mainnet" },
  { same: true, a: "Jump Crypto's Wormhole bridge exploited for $320M", b: 'Wormhole bridge hacked, $320 million in wrapped ETH stolen' },
  { same: true, a: 'Bitcoin ETFs see record $1 billion inflows in a single day', b: 'Spot bitcoin ETFs log record $1B daily inflow' },
  { same: true, a: 'Ethereum co-founder Vitalik Buterin proposes gas limit increase', b: 'Vitalik Buterin proposes raising Ethereum gas limit' },

  // Different stories (mostly close ones)
  { same: false, a: 'Bitcoin tops $100,000 for the first time', b: 'Bitcoin falls below $90,000 as ETF outflows mount' },
  { same: false, a: 'SEC approves spot Bitcoin ETFs', b: 'SEC delays decision on spot Ethereum ETFs' },
  { same: false, a: 'Ethereum Dencun upgrade goes live on mainnet', b: 'Ethereum developers set date for Pectra upgrade on testnet' },
  { same: false, a: 'Binance CEO Changpeng Zhao pleads guilty, steps down', b: 'Binance.US halts dollar deposits and withdrawals' },
  { same: false, a: 'Coinbase sued by SEC for operating unregistered exchange', b: 'Coinbase reports first profitable quarter in two years' },
  { same: false, a: 'Curve Finance pools exploited for $50 million via Vyper bug', b: 'Curve Finance launches crvUSD stablecoin on mainnet' },
  { same: false, a: 'Tether mints another $1 billion USDT on Tron', b: 'Tether reports $1 billion profit in first quarter' },
  { same: false, a: 'Solana network suffers five-hour outage', b: 'Solana price surges 10% as memecoin trading volume hits record' },
  { same: false, a: 'MicroStrategy buys 12,000 more bitcoin', b: 'MicroStrategy shares fall 8% after earnings miss' },
  { same: false, a: 'Ripple wins partial victory against SEC', b: 'Ripple launches RLUSD stablecoin on XRP Ledger and Ethereum' },
  { same: false, a: 'Uniswap Labs receives Wells notice from SEC', b: 'Uniswap v4 launches on Ethereum mainnet and 11 other chains' },
  { same: false, a: 'Arbitrum DAO approves gaming catalyst program', b: 'Optimism DAO approves third round of retroactive public goods funding' },
  { same: false, a: 'Sam Bankman-Fried sentenced to 25 years in prison', b: 'Caroline Ellison sentenced to two years in prison' },
  { same: false, a: 'Circle files for IPO in the United States', b: 'Circle mints $250 million USDC on Solana' },
  { same: false, a: 'Ethereum price falls below $2,000', b: 'Ethereum price climbs above $4,000' },
  { same: false, a: 'Mt. Gox begins repaying creditors', b: 'FTX begins repaying creditors with cash distributions' },
  { same: false, a: 'Kraken to pay $30 million to settle SEC staking charges', b: 'Kraken to list Solana memecoin BONK' },
  { same: false, a: 'Polygon unveils zkEVM mainnet beta', b: 'zkSync Era mainnet opens to all users' },
  { same: false, a: 'Celsius Network files for bankruptcy', b: 'Voyager Digital files for bankruptcy' },
  { same: false, a: 'Robinhood to acquire Bitstamp for $200 million', b: 'Coinbase to acquire Deribit for $2.9 billion' },
  { same: false, a: 'Bitcoin halving completes at block 840,000', b: 'Bitcoin hashrate hits new all-time high' },
  { same: false, a: 'PayPal launches PYUSD stablecoin', b: 'PayPal lets US users transfer crypto to external wallets' },
  { same: false, a: 'Hackers drain $600 million from Poly Network', b: "Hackers drain $100 million from Harmony's Horizon bridge" },
  { same: false, a: 'BlackRock files for spot Ethereum ETF', b: 'Fidelity files for spot Solana ETF' },
  { same: false, a: 'Starknet airdrop goes live for eligible users', b: 'LayerZero airdrop goes live for eligible users' },
  { same: false, a: 'Coinbase Base mainnet opens to the public', b: 'Blast mainnet opens to the public' },
  { same: false, a: 'Wormhole bridge exploited for $320M', b: 'Nomad bridge exploited for $190M' },
  { same: false, a: 'El Salvador makes Bitcoin legal tender', b: 'Central African Republic adopts Bitcoin as legal tender' },
  { same: false, a: 'Bitcoin ETFs see record $1 billion inflows in a single day', b: 'Ethereum ETFs see record $500 million outflows' },
  { same: false, a: 'SEC sues Binance and CZ over securities violations', b: 'CFTC sues Binance and CZ over derivatives violations' },
  { same: false, a: 'Vitalik Buterin proposes raising Ethereum gas limit', b: 'Vitalik Buterin sells memecoins, donates proceeds to charity' },
  { same: false, a: 'Aave deploys v3 on Base', b: 'Compound deploys v3 on Arbitrum' },
];

/**
 * Written after the threshold and the normalisation rules were fixed, and never used to tune them:
 * the figures on this set are the honest estimate of how the matcher does on unseen headlines.
 */
export const heldOutHeadlinePairs: HeadlinePair[] = [
  { same: true, a: 'Binance lists Jupiter token JUP', b: 'JUP token to be listed on Binance' },
  { same: true, a: 'Arbitrum One suffers sequencer outage', b: 'Arbitrum sequencer goes down, halting transactions' },
  { same: true, a: 'Bitcoin mining difficulty hits record high', b: 'BTC mining difficulty reaches all-time high' },
  { same: true, a: 'Galaxy Digital to list on Nasdaq', b: "Mike Novogratz's Galaxy Digital set for Nasdaq listing" },
  { same: true, a: 'Ethereum Foundation sells 100 ETH for stablecoins', b: 'Ethereum Foundation sold 100 ether for stablecoins' },
  { same: true, a: 'Hong Kong approves spot bitcoin and ether ETFs', b: 'Hong Kong regulators approve spot BTC and ETH exchange-traded funds' },
  { same: false, a: 'Binance lists Jupiter token JUP', b: 'Coinbase lists Jupiter token JUP' },
  { same: false, a: 'Arbitrum One suffers sequencer outage', b: 'Base suffers sequencer outage' },
  { same: false, a: 'Bitcoin mining difficulty hits record high', b: 'Bitcoin miner revenue hits record low' },
  { same: false, a: 'Galaxy Digital to list on Nasdaq', b: 'Galaxy Digital reports $300 million quarterly loss' },
  { same: false, a: 'Ethereum Foundation sells 100 ETH for stablecoins', b: 'Ethereum Foundation announces leadership shake-up' },
  { same: false, a: 'Hong Kong approves spot bitcoin and ether ETFs', b: 'Australia approves spot bitcoin ETF' },
];
