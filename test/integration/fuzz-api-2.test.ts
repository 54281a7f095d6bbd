/**
 * Hostile input over every operation of the OpenAPI document, part 2 of FUZZ_API_PARTS: the
 * operations are dealt to the parts round-robin (test/support/fuzz-api-suite.ts describes the suite).
 */
import { fuzzApiSuite } from '../support/fuzz-api-suite.js';

fuzzApiSuite(2);
