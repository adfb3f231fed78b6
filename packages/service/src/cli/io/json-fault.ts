/**
 * Where a text stops being JSON, for the messages that V8's parser gives without a position (`Unexpected token 'h',
 * "hello\n" is not valid JSON`): a reader of RFC 8259's grammar, run only on a text the parser refused.
 */

/** Thrown at the first character that cannot continue a JSON text. */
class Fault extends Error {
  constructor(readonly at: number) {
    super(`not JSON from offset ${at}`);
  }
}

const SPACE = new Set([' ', '\t', '\n', '\r']);
const ESCAPED = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);
const DIGIT = /[0-9]/;
const HEX = /[0-9a-fA-F]/;

/**
 * The offset of the first character of `text` that no JSON text can have there (`text.length` where it ends too
 * soon); undefined where the text is JSON, or nests too deep to be walked.
 * @example jsonFaultOffset('{"a":1,}') // 7
 */
export function jsonFaultOffset(text: string): number | undefined {
  let at = 0;
  const fail = (): never => {
    throw new Fault(at);
  };
  const space = () => {
    while (SPACE.has(text[at]!)) at++;
  };
  const expect = (char: string) => (text[at] === char ? at++ : fail());
  const digits = () => {
    if (!DIGIT.test(text[at] ?? '')) fail();
    while (DIGIT.test(text[at] ?? '')) at++;
  };
  const string = () => {
    expect('"');
    for (;;) {
      const char = text[at];
      if (char === undefined || char < ' ') fail();
      at++;
      if (char === '"') return;
      if (char !== '\\') continue;
      if (text[at] === 'u') {
        at++;
        for (let i = 0; i < 4; i++) {
          if (!HEX.test(text[at] ?? '')) fail();
          at++;
        }
      } else if (ESCAPED.has(text[at]!)) at++;
      else fail();
    }
  };
  const number = () => {
    if (text[at] === '-') at++;
    if (text[at] === '0') at++;
    else digits();
    if (text[at] === '.') {
      at++;
      digits();
    }
    if (text[at] === 'e' || text[at] === 'E') {
      at++;
      if (text[at] === '+' || text[at] === '-') at++;
      digits();
    }
  };
  const members = (close: string, member: () => void) => {
    at++;
    space();
    if (text[at] !== close)
      for (;;) {
        member();
        space();
        if (text[at] === close) break;
        expect(',');
        space();
      }
    at++;
  };
  const value = (): void => {
    space();
    const char = text[at];
    if (char === '{')
      members('}', () => {
        string();
        space();
        expect(':');
        value();
      });
    else if (char === '[') members(']', value);
    else if (char === '"') string();
    else if (char === '-' || DIGIT.test(char ?? '')) number();
    else {
      const word = ['true', 'false', 'null'].find((w) => w[0] === char);
      if (word === undefined) fail();
      for (const letter of word!) expect(letter);
    }
  };
  try {
    value();
    space();
    return at === text.length ? undefined : at;
  } catch (error) {
    if (error instanceof Fault) return error.at;
    if (error instanceof RangeError) return undefined;
    throw error;
  }
}
