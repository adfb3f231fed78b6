/**
 * A string of hex left on the JSON scanner's tape (input/json-rpc/tape-block.ts), where the string `JSON.parse` gives
 * would be decoded a second time: a node's receipt restates its 256-byte bloom, 512 digits a receipt.
 */
import { TOKEN } from '../../json/scan/scan-layout.js';
import type { TapeReader } from '../../json/scan/tape-value.js';

/**
 * A JSON string `"0x"` and hex digits, on the tape that holds its bytes (the scanner decoded them as it read it). It
 * stands only for such a string, so that a reader taking either holds both to one rule (readReceiptBloom).
 */
export class TapeHex {
  readonly #tape: TapeReader;
  readonly #token: number;
  /** The hex string at token `token` of `tape`; throws a RangeError for a token of another kind. */
  constructor(tape: TapeReader, token: number) {
    if (tape.kind(token) !== TOKEN.hex) throw new RangeError(`token ${token}: expected a hex string`);
    this.#tape = tape;
    this.#token = token;
  }

  /** Its bytes, a view into the tape's, where its digits spell exactly `size` bytes; else undefined. */
  bytesOf(size: number): Uint8Array | undefined {
    const at = this.#tape.hexAt(this.#token, size);
    return at === -1 ? undefined : this.#tape.view(at, size);
  }
}
