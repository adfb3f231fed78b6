/**
 * Run before every test file (vitest.config.ts): a property that names no case count tries the share of fast-check's
 * default 100 that test/helpers/runs.ts gives (all 100 under FULL=1).
 */
import fc from 'fast-check';
import { DEFAULT_RUNS } from './runs.js';

fc.configureGlobal({ numRuns: DEFAULT_RUNS });
