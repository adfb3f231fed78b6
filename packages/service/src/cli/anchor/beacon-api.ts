/**
 * A beacon node's HTTP API (ethereum/beacon-APIs), the few routes `anchor prove` reads: a signed block as SSZ
 * (`/eth/v2/beacon/blocks/{block_id}`, `Accept: application/octet-stream`), a block's root by slot
 * (`/eth/v1/beacon/blocks/{block_id}/root`), a header (`/eth/v1/beacon/headers/{block_id}`), and a state's
 * `historical_summaries` with their branch to the state root, which no standard route serves: Lodestar's and
 * Nimbus's own routes do (their JSON: `data.historical_summaries`, `data.proof`), and for `--light-client` a
 * light-client bootstrap and the updates of a range of periods (SSZ). Nothing the node answers is
 * trusted here: the caller holds every answer to a root. A 404 is `null` (no such block, an empty slot); the
 * node is named by its origin only, since a provider's path often holds a key.
 */
import type { BeaconBlockHeader, HistoricalSummary, Node } from 'evm-integrity/anchor';
import { collectBytes, hexToBytes } from 'evm-integrity';
import { AnchorProveError } from './prove-error.js';

/** What a node's `historical_summaries` route gives: the list and its branch to the state root. */
export interface SummariesWithProof {
  readonly summaries: HistoricalSummary[];
  readonly proof: Node[];
}

/** Options of a {@link BeaconApi}: tests inject `fetch` and `sleep`. */
export interface BeaconApiOptions {
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  /** One request's time limit, its whole answer read included (default 60 s). */
  timeoutMs?: number;
  /** Tries after the first of a request that times out, is cut, or gets 429 or 5xx (default 2). */
  retries?: number;
}

/** The largest answer read (a signed block is a few MB at most): a larger one is refused. */
const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

/**
 * The routes of `historical_summaries` with their proof, tried in this order: Lodestar's (since 2025), Lodestar's
 * earlier one, Nimbus's; colibri-stateless's prover (corpus-core/colibri-stateless) calls the same three.
 */
const SUMMARIES_ROUTES: readonly ((stateId: string) => string)[] = [
  (stateId) => `/eth/v1/lodestar/states/${stateId}/historical_summaries`,
  (stateId) => `/eth/v1/lodestar/historical_summaries/${stateId}`,
  (stateId) => `/nimbus/v1/debug/beacon/states/${stateId}/historical_summaries`,
];

/** Statuses of a route the node does not have (or not for this id): the next route is tried. */
const NO_ROUTE = new Set([400, 404, 405, 501]);

/** The status of a block the node does not have. */
const NOT_FOUND = new Set([404]);

/** Network failures not worth a retry: nothing listens, or the name does not resolve. */
const FINAL_NETWORK_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

const HEX32 = /^0x[0-9a-fA-F]{64}$/;

/** The code of a fetch failure's cause (ECONNREFUSED, …), or its message. */
function causeOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.name === 'TimeoutError') return 'no answer in time';
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  if (typeof cause?.code === 'string') return cause.code;
  return typeof cause?.message === 'string' ? cause.message : error.message;
}

/** An answer: its status and body bytes. */
interface Answer {
  readonly status: number;
  readonly body: Uint8Array;
  readonly contentType: string;
  /** The `Eth-Consensus-Version` header (the fork of the data), lower case, or '' without one. */
  readonly version: string;
}

/** A light-client bootstrap as the node served it: its SSZ and the fork its header named ('' for none). */
export interface ServedBootstrap {
  readonly ssz: Uint8Array;
  readonly version: string;
}

/** A beacon node's API at `url` (http or https). */
export class BeaconApi {
  /** The node as messages name it: its origin. */
  readonly where: string;
  readonly #base: string;
  readonly #fetch: typeof fetch;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #timeoutMs: number;
  readonly #retries: number;

  constructor(url: string, options: BeaconApiOptions = {}) {
    const parsed = new URL(url);
    this.where = parsed.origin;
    this.#base = url.replace(/\/+$/, '');
    this.#fetch = options.fetch ?? fetch;
    this.#sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.#timeoutMs = options.timeoutMs ?? 60_000;
    this.#retries = options.retries ?? 2;
  }

  #fail(path: string, why: string): AnchorProveError {
    return new AnchorProveError('source', `the beacon node at ${this.where} (GET ${path}): ${why}`);
  }

  /** The body, gathered as it comes and abandoned past {@link MAX_ANSWER_BYTES}. */
  async #body(response: Response, path: string): Promise<Uint8Array> {
    if (response.body === null) return new Uint8Array(0);
    const body = await collectBytes(response.body as AsyncIterable<Uint8Array>, MAX_ANSWER_BYTES);
    if (body === null) {
      await response.body.cancel().catch(() => undefined);
      throw this.#fail(path, `an answer of more than ${MAX_ANSWER_BYTES / 1024 / 1024} MiB`);
    }
    return body;
  }

  /** GET `path`, tried again after a timeout, a cut connection, a 429 or a 5xx (0.5 s, then 1 s, …). */
  async #get(path: string, accept: string): Promise<Answer> {
    for (let attempt = 0; ; attempt++) {
      let why: string;
      try {
        const response = await this.#fetch(`${this.#base}${path}`, {
          headers: { Accept: accept },
          signal: AbortSignal.timeout(this.#timeoutMs),
        });
        const body = await this.#body(response, path);
        if (response.status !== 429 && response.status < 500)
          return {
            status: response.status,
            body,
            contentType: response.headers.get('content-type') ?? '',
            version: (response.headers.get('eth-consensus-version') ?? '').toLowerCase(),
          };
        why = `HTTP ${response.status}`;
      } catch (error) {
        if (error instanceof AnchorProveError) throw error;
        const cause = causeOf(error);
        if (FINAL_NETWORK_CODES.has(cause)) throw this.#fail(path, `cannot be reached (${cause})`);
        why = `cannot be reached (${cause})`;
      }
      if (attempt >= this.#retries) throw this.#fail(path, `${why}, ${attempt + 1} tries`);
      await this.#sleep(500 * 2 ** attempt);
    }
  }

  /** The JSON of a 200 answer, null for a 404; anything else is an error naming the route. */
  async #json(path: string): Promise<unknown> {
    const answer = await this.#get(path, 'application/json');
    if (answer.status === 404) return null;
    if (answer.status !== 200) throw this.#fail(path, `HTTP ${answer.status}`);
    try {
      return JSON.parse(new TextDecoder().decode(answer.body));
    } catch {
      throw this.#fail(path, 'an answer that is not JSON');
    }
  }

  /** The SSZ answer of `path`, null for a status of `absent`; anything but SSZ is an error naming the route. */
  async #ssz(path: string, absent: ReadonlySet<number>): Promise<Answer | null> {
    const answer = await this.#get(path, 'application/octet-stream');
    if (absent.has(answer.status)) return null;
    if (answer.status !== 200) throw this.#fail(path, `HTTP ${answer.status}`);
    if (!answer.contentType.startsWith('application/octet-stream'))
      throw this.#fail(
        path,
        `an answer of ${answer.contentType || 'no content type'}, not SSZ (application/octet-stream)`,
      );
    return answer;
  }

  /** A signed beacon block's SSZ (`block_id`: a root, a slot, `head`, `finalized`), or null when the node has none. */
  async signedBlock(blockId: string): Promise<Uint8Array | null> {
    return (await this.#ssz(`/eth/v2/beacon/blocks/${blockId}`, NOT_FOUND))?.body ?? null;
  }

  /**
   * The light-client bootstrap of the block `root` (0x hex), or null when the node serves none: no such
   * bootstrap, or no light-client routes at all (a node whose light-client server is off answers 404 or 501).
   */
  async lightClientBootstrap(root: string): Promise<ServedBootstrap | null> {
    const answer = await this.#ssz(`/eth/v1/beacon/light_client/bootstrap/${root}`, NO_ROUTE);
    return answer === null ? null : { ssz: answer.body, version: answer.version };
  }

  /**
   * The light-client updates of periods `start` to `start + count - 1` as the node frames them (each an 8-byte
   * length, a fork digest and the SSZ: split them with `splitBeaconApiList`); a node may answer fewer than
   * asked, the latest it has. Null when the node has no such route.
   */
  async lightClientUpdates(start: number, count: number): Promise<Uint8Array | null> {
    const answer = await this.#ssz(
      `/eth/v1/beacon/light_client/updates?start_period=${start}&count=${count}`,
      NO_ROUTE,
    );
    return answer?.body ?? null;
  }

  /** The root of the block at `slot`, or null when the slot is empty. */
  async blockRoot(slot: number): Promise<Node | null> {
    const path = `/eth/v1/beacon/blocks/${slot}/root`;
    const json = await this.#json(path);
    if (json === null) return null;
    const root = (json as { data?: { root?: unknown } }).data?.root;
    if (typeof root !== 'string' || !HEX32.test(root)) throw this.#fail(path, 'data.root is not a 32-byte 0x hex root');
    return hexToBytes(root);
  }

  /** The header of a block (`block_id` as {@link signedBlock}), or null when the node has none. */
  async header(blockId: string): Promise<BeaconBlockHeader | null> {
    const path = `/eth/v1/beacon/headers/${blockId}`;
    const json = await this.#json(path);
    if (json === null) return null;
    const message = (json as { data?: { header?: { message?: Record<string, unknown> } } }).data?.header?.message;
    const uint = (name: string): bigint => {
      const value = message?.[name];
      if (typeof value !== 'string' || !/^\d{1,20}$/.test(value))
        throw this.#fail(path, `data.header.message.${name} is not a decimal integer`);
      return BigInt(value);
    };
    const root = (name: string): Node => {
      const value = message?.[name];
      if (typeof value !== 'string' || !HEX32.test(value))
        throw this.#fail(path, `data.header.message.${name} is not a 32-byte 0x hex root`);
      return hexToBytes(value);
    };
    return {
      slot: uint('slot'),
      proposerIndex: uint('proposer_index'),
      parentRoot: root('parent_root'),
      stateRoot: root('state_root'),
      bodyRoot: root('body_root'),
    };
  }

  /**
   * The `historical_summaries` of the state `stateId` (its root, 0x hex) with their branch to the state root, from
   * the first route of {@link SUMMARIES_ROUTES} the node has; null when it has none of them for this state.
   */
  async historicalSummaries(stateId: string): Promise<SummariesWithProof | null> {
    for (const route of SUMMARIES_ROUTES) {
      const path = route(stateId);
      const answer = await this.#get(path, 'application/json');
      if (NO_ROUTE.has(answer.status)) continue;
      if (answer.status !== 200) throw this.#fail(path, `HTTP ${answer.status}`);
      let json: unknown;
      try {
        json = JSON.parse(new TextDecoder().decode(answer.body));
      } catch {
        throw this.#fail(path, 'an answer that is not JSON');
      }
      return this.#summaries(json, path);
    }
    return null;
  }

  /** `data.historical_summaries` and `data.proof` of a summaries answer, each member checked. */
  #summaries(json: unknown, path: string): SummariesWithProof {
    const data = (json as { data?: { historical_summaries?: unknown; proof?: unknown } } | null)?.data;
    const node = (value: unknown, where: string): Node => {
      if (typeof value !== 'string' || !HEX32.test(value))
        throw this.#fail(path, `${where} is not a 32-byte 0x hex root`);
      return hexToBytes(value);
    };
    if (!Array.isArray(data?.historical_summaries)) throw this.#fail(path, 'data.historical_summaries is not a list');
    if (!Array.isArray(data.proof)) throw this.#fail(path, 'data.proof is not a list');
    const summaries = data.historical_summaries.map((entry: unknown, i: number) => {
      const member = (name: string) => (entry as Record<string, unknown> | null)?.[name];
      return {
        blockSummaryRoot: node(member('block_summary_root'), `data.historical_summaries[${i}].block_summary_root`),
        stateSummaryRoot: node(member('state_summary_root'), `data.historical_summaries[${i}].state_summary_root`),
      };
    });
    const proof = data.proof.map((value: unknown, i: number) => node(value, `data.proof[${i}]`));
    return { summaries, proof };
  }
}
