import { builtinChains } from './builtin.js';
import type { ChainInfo } from './chain-info.js';

/**
 * Every built-in chain, in the table's order, for a library's user who lists them. A module of its own: the core looks
 * chains up one at a time (`builtinChain`), and a program that never imports this list never makes them all.
 */
export const BUILTIN_CHAINS: readonly ChainInfo[] = builtinChains();
