/** The credibility feature's public surface: jobs, the rewards feature and the app import only this file. */
export { ensureMonthRecomputed, recomputeMonth } from './service.js';
