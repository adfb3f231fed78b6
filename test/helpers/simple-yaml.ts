/**
 * A reader for the plain subset of YAML that compose.yaml keeps to, so that tests read it without
 * a YAML dependency: block maps and lists indented by two spaces, scalars (plain, "double" or
 * 'single' quoted), one-line flow lists written as JSON, comments on their own lines. Anything
 * else (anchors, multi-line strings, flow maps, maps inside lists, tabs) is refused, naming the
 * line, rather than read wrongly.
 */

/** A value of the subset. */
export type YamlValue = string | null | YamlValue[] | { [key: string]: YamlValue };

interface Line {
  number: number;
  indent: number;
  text: string;
}

function refuse(line: Line, why: string): never {
  throw new Error(`line ${line.number}: ${why}: ${JSON.stringify(line.text)}`);
}

function scalar(line: Line, text: string): YamlValue {
  if (/^[&*!|>{]/.test(text) || / #/.test(text)) refuse(line, 'outside the subset');
  if (text.startsWith('[')) {
    const list = JSON.parse(text) as unknown;
    if (!Array.isArray(list) || !list.every((item) => typeof item === 'string'))
      refuse(line, 'a flow list must be a JSON array of strings');
    return list;
  }
  if (text.startsWith('"')) return JSON.parse(text) as string;
  if (text.startsWith("'")) {
    if (!/^'(?:[^']|'')*'$/.test(text)) refuse(line, 'an unterminated quoted string');
    return text.slice(1, -1).replace(/''/g, "'");
  }
  return text;
}

/** The block whose lines start at `at` with indentation `indent`; the index after it. */
function block(lines: Line[], at: number, indent: number): [YamlValue, number] {
  const first = lines[at]!;
  if (first.text.startsWith('- ')) {
    const list: YamlValue[] = [];
    while (at < lines.length && lines[at]!.indent === indent && lines[at]!.text.startsWith('- ')) {
      const item = lines[at]!.text.slice(2);
      if (/^[\w.-]+:( |$)/.test(item)) refuse(lines[at]!, 'a map inside a list is outside the subset');
      list.push(scalar(lines[at]!, item));
      at++;
    }
    return [list, at];
  }
  const map: { [key: string]: YamlValue } = {};
  while (at < lines.length && lines[at]!.indent === indent) {
    const line = lines[at]!;
    const match = /^([\w.-]+):(?: (.*))?$/.exec(line.text);
    if (match === null) refuse(line, 'expected "key: value" or "key:"');
    if (match[1]! in map) refuse(line, `a second ${match[1]}`);
    at++;
    if (match[2] !== undefined) map[match[1]!] = scalar(line, match[2]);
    else if (at < lines.length && lines[at]!.indent > indent)
      [map[match[1]!], at] = block(lines, at, lines[at]!.indent);
    else map[match[1]!] = null;
  }
  if (at < lines.length && lines[at]!.indent > indent) refuse(lines[at]!, 'unexpected indentation');
  return [map, at];
}

/** The document of `text`, a map at its top. */
export function parseSimpleYaml(text: string): { [key: string]: YamlValue } {
  const lines: Line[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = { number: i + 1, indent: raw.length - raw.trimStart().length, text: raw.trim() };
    if (line.text === '' || line.text.startsWith('#')) return;
    if (/^\s*\t/.test(raw) || line.indent % 2 !== 0) refuse(line, 'indent by two spaces');
    lines.push(line);
  });
  if (lines.length === 0) return {};
  const [document, end] = block(lines, 0, 0);
  if (end < lines.length) refuse(lines[end]!, 'unexpected indentation');
  if (Array.isArray(document) || document === null || typeof document === 'string')
    refuse(lines[0]!, 'expected a map at the top');
  return document;
}
