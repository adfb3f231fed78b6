/**
 * What the command line shows of a text it did not write (a user's value, a file name, a name stored in a file): never
 * a control character (ESC, BEL), a line break or an invisible character, which could drive the terminal or forge a
 * line; each is written as its code point.
 */

/**
 * A character as a message names it: itself where it is visible, else its code point (`U+0007`, `U+FEFF`).
 * @example characterName('}') // "'}'"
 */
export function characterName(char: string): string {
  return /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u.test(char)
    ? `'${char}'`
    : `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * `text` with every character that is not visible or a plain space written as its code point.
 * @example printable('\u001b[31mevil\u0007') // 'U+001B[31mevilU+0007'
 */
export const printable = (text: string) =>
  text.replace(/[^\p{L}\p{M}\p{N}\p{P}\p{S} ]/gu, (char) => characterName(char));

/**
 * {@link printable} of each line of a text of several (a table, a report), its line breaks kept.
 * @example printableLines('name: a\u0007b\n') // 'name: aU+0007b\n'
 */
export const printableLines = (text: string) => text.split('\n').map(printable).join('\n');
