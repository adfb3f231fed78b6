import { isIPv4, isIPv6 } from 'node:net';

/** A DNS name: dot-separated labels of letters, digits and inner hyphens, each at most 63, at most 253 in all. */
const HOSTNAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i;
/** `host`, `host:port`, `[v6]` or `[v6]:port`; the port is checked apart, for its range. */
const HOST_PORT = /^(\[[0-9a-f:.]+\]|[^[\]:]+)(?::(\d{1,5}))?$/i;

/**
 * `value` when it is a valid Host header, `host[:port]`: a DNS name, an IPv4 address or a bracketed IPv6 address, and
 * a port 1-65535; else null. Anything else (a path, userinfo, spaces, a zone id, a label of 64) is never put in a link.
 */
function hostOf(value: string | undefined): string | null {
  const parts = value === undefined ? null : HOST_PORT.exec(value);
  if (parts === null) return null;
  const [, name = '', port] = parts;
  if (port !== undefined && !(/^[1-9]/.test(port) && Number(port) <= 65_535)) return null;
  if (name.startsWith('[')) return isIPv6(name.slice(1, -1)) ? value! : null;
  // A name whose last label is a number can only be an IPv4 address (as URL parsers read it).
  if (/(?:^|\.)\d+$/.test(name)) return isIPv4(name) ? value! : null;
  return HOSTNAME.test(name) ? value! : null;
}

/**
 * The reference page a request's error envelopes link to (`docs_url`, before its `#error-<code>`): under `public_url`
 * when set; else under the Host the request was sent to (plain `http`: the server reads no forwarded headers); else,
 * for a request without a valid Host, the relative `/v1/docs`. The one rule for every route, the worker pool's and
 * the body reader's refusals; never the bind address (`0.0.0.0` is no address to call).
 *
 * @example docsUrlOf(null, 'verify.example.com:8091') // 'http://verify.example.com:8091/v1/docs'
 * @example docsUrlOf(null, 'evil.com/x?y') // '/v1/docs'
 */
export function docsUrlOf(publicUrl: string | null, host: string | undefined): string {
  const valid = hostOf(host);
  return `${publicUrl ?? (valid === null ? '' : `http://${valid}`)}/v1/docs`;
}
