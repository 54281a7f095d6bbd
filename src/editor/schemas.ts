/** Request schemas shared by the editors' routes. */
import { MAX_DECISION_NOTE } from '../articles/index.js';
import { text } from '../platform/http/schemas.js';

/** An editor's note on a decision: trimmed, at most MAX_DECISION_NOTE characters; empty or absent is null. */
export const decisionNote = text()
  .trim()
  .max(MAX_DECISION_NOTE, `at most ${MAX_DECISION_NOTE} characters`)
  .nullable()
  .optional()
  .transform((v) => (v ? v : null));
