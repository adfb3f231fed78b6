import type { BlockJson } from '../sources/block-source.js';
import type { Exchange, ExchangeRecorder } from '../sources/exchange.js';

/** A lineage bundle as {@link BundleRecorder.toBundle} writes it (docs/lineage.md "The bundle format"). */
export interface RecordedBundle {
  base_url: string;
  exchanges: Exchange[];
  blocks: BlockJson[];
}

/** Puts `value` at `key`'s place in `list`, or appends it: a later answer replaces an earlier one. */
function upsert<T>(list: T[], at: Map<string, number>, key: string, value: T): void {
  const index = at.get(key);
  if (index === undefined) {
    at.set(key, list.length);
    list.push(value);
  } else list[index] = value;
}

/**
 * Collects what a live audit fetched, so that it can be replayed offline
 * (`--record FILE`, then `--bundle FILE`): one exchange per request, with the
 * body as sent and the final answer as received (answers that were retried,
 * such as a 429 followed by a 200, are not kept: a replay must find the answer
 * the audit used), and every block a block source fetched.
 * @example
 * const recorder = new BundleRecorder();
 * const source = new RpcBlockSource({ url, recorder });
 * await writeBundle('audit.json.gz', recorder.toBundle(''));
 */
export class BundleRecorder implements ExchangeRecorder {
  private readonly exchanges: Exchange[] = [];
  private readonly exchangeAt = new Map<string, number>();
  private readonly blocks: BlockJson[] = [];
  private readonly blockAt = new Map<string, number>();

  /** Records one exchange; the same request (method, path, body) twice keeps the latest answer. */
  addExchange(exchange: Exchange): void {
    const copy = structuredClone(exchange);
    const key = `${copy.method} ${copy.path} ${JSON.stringify(copy.body)}`;
    upsert(this.exchanges, this.exchangeAt, key, copy);
  }

  /**
   * Records a block in the fixtures' JSON-RPC format; the same block (chain, number) again replaces it. A bundle holds
   * one version of each block (a second, different one is refused), so after a reorg it keeps the chain the audit
   * went on with.
   */
  addBlock(block: BlockJson): void {
    const copy = structuredClone(block);
    const key = `${copy.chain_id} ${String(copy.header.number)}`;
    upsert(this.blocks, this.blockAt, key, copy);
  }

  /** How many of the blocks `from` to `to` of chain `chainId` the recording does not hold. */
  missingBlocks(chainId: number, from: number, to: number): number {
    const held = new Set<number>();
    for (const block of this.blocks) {
      const number = Number(block.header.number);
      if (block.chain_id === chainId && number >= from && number <= to) held.add(number);
    }
    return Math.max(0, to - from + 1) - held.size;
  }

  /** The bundle: `{base_url, exchanges, blocks}` (copies; recording may go on). */
  toBundle(baseUrl: string): RecordedBundle {
    return { base_url: baseUrl, exchanges: structuredClone(this.exchanges), blocks: structuredClone(this.blocks) };
  }
}
