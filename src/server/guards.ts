import type { Context } from 'hono';
import type { Endpoint, Env } from './app.js';
import type { ServerConfig } from './config.js';
import { sendError } from './responses.js';
import type { Account, Store } from './store/types.js';

/** The account that serves requests when auth is explicitly off. */
export const ANONYMOUS_ACCOUNT = 'anonymous';

const AUTH_DETAILS = {
  auth_scheme: 'Bearer',
  expected_header: 'Authorization: Bearer <API_KEY>',
};

/**
 * What the 401 says of the Authorization header it got: the scheme when it is a known one,
 * and the length; never a character of the credential, which may belong to another service.
 */
function redact(header: string): string {
  const scheme = /^(Bearer|Basic|Token|Digest)(?:\s|$)/i.exec(header)?.[1];
  const hidden = `[redacted, ${header.length} characters]`;
  return scheme === undefined ? hidden : `${scheme} ${hidden}`;
}

/** The RFC 6750 challenge: no error code when no credential was sent, as section 3.1 asks. */
function challenge(status: 'missing' | 'malformed' | 'unknown' | 'revoked'): string {
  const realm = 'Bearer realm="evm-integrity"';
  if (status === 'missing') return realm;
  return `${realm}, error="${status === 'malformed' ? 'invalid_request' : 'invalid_token'}"`;
}

/**
 * The checks every metered request passes before its operation runs: the key
 * (401), the entitlements (403), the account's requests per second and its CU
 * allowance (429). Each answers the error response, or lets the request through.
 */
export function createGuards({ config, store, docsUrl, now }: { config: ServerConfig; store: Store; docsUrl: string; now: () => Date }) {
  /** Resolves the bearer key to an account, or answers 401. */
  const authenticate = (c: Context<Env>): Account | Response => {
    if (!config.auth) {
      const account = store.getAccount(ANONYMOUS_ACCOUNT);
      if (account === undefined) throw new Error('auth is off but the anonymous account is missing');
      return account;
    }
    const header = c.req.header('authorization');
    const fail = (status: 'missing' | 'malformed' | 'unknown' | 'revoked', message: string) =>
      sendError(c, docsUrl, {
        code: 'UNAUTHORIZED',
        http_status: 401,
        message,
        hint: 'Send the API key from `evm-integrity keys create` as Authorization: Bearer <API_KEY>.',
        retryable: false,
        details: {
          ...AUTH_DETAILS,
          provided_header: header === undefined ? null : redact(header),
          token_status: status,
          recommendation: status === 'revoked' ? 'This key was revoked; use another active key of the account.' : 'Check the key and the header format.',
        },
      }, { 'WWW-Authenticate': challenge(status) });
    if (header === undefined || header.trim() === '') return fail('missing', 'No API key: the Authorization header is missing.');
    const match = /^Bearer +(\S+)$/i.exec(header.trim());
    if (match === null) return fail('malformed', 'The Authorization header is not "Bearer <API_KEY>".');
    const result = store.authenticate(match[1]!);
    if (result.status === 'unknown') return fail('unknown', 'The API key is not known to this server.');
    if (result.status === 'revoked') return fail('revoked', 'The API key was revoked.');
    return result.account;
  };

  const forbidden = (c: Context<Env>, account: Account, what: string) =>
    sendError(c, docsUrl, {
      code: 'FORBIDDEN',
      http_status: 403,
      message: `This account's entitlements do not include ${what}.`,
      hint: 'Ask the operator to extend the account\'s entitlements.',
      severity: 'warning',
      retryable: false,
      details: { required_plan: 'an account entitled to it', your_plan: account.plan, contact: 'the operator of this server', recommendation: `Use a key of an account entitled to ${what}.` },
    });

  const rateHeaders = (limit: number, remaining: number) => ({ 'X-RateLimit-Limit': String(limit), 'X-RateLimit-Remaining': String(Math.max(0, remaining)) });

  /** Per-account requests per second; 429 beyond. Returns the headers for a successful answer. */
  const throttle = (c: Context<Env>, account: Account): Record<string, string> | Response => {
    const token = store.takeRateToken(account.id, account.rateLimitRps, now().getTime());
    const headers = rateHeaders(token.limit, token.remaining);
    if (token.allowed) return headers;
    return sendError(
      c,
      docsUrl,
      {
        code: 'RATE_LIMIT_EXCEEDED',
        http_status: 429,
        message: `More than ${token.limit} requests per second for this account.`,
        hint: 'Wait Retry-After seconds, then back off exponentially. The limit is shared by all keys of the account.',
        severity: 'warning',
        retryable: true,
        details: { limit_rps: token.limit, current_estimated_rps: token.count, retry_after_seconds: token.retryAfterSeconds, limit_scope: 'account', limit_window_seconds: 1 },
      },
      { ...headers, 'Retry-After': String(token.retryAfterSeconds) },
    );
  };

  /** 429 when the account's CU allowance cannot pay for `endpoint`; undefined when it can. */
  const allowanceExceeded = (c: Context<Env>, account: Account, endpoint: Endpoint): Response | undefined => {
    const usage = store.usage(account.id, now());
    if (usage.cuUsed + endpoint.cu > usage.cuLimit + usage.cuExtra) {
      const retryAfter = Math.max(1, Math.ceil((Date.parse(usage.periodEnd) - now().getTime()) / 1000));
      return sendError(
        c,
        docsUrl,
        {
          code: 'RATE_LIMIT_EXCEEDED',
          http_status: 429,
          message: `The account's compute-unit allowance (${usage.cuLimit + usage.cuExtra} CU) is used up until ${usage.periodEnd}.`,
          hint: 'Wait for cu_reset_at, or have the operator add a CU package (evm-integrity accounts add-cu).',
          severity: 'warning',
          retryable: true,
          details: { limit_rps: account.rateLimitRps, current_estimated_rps: null, retry_after_seconds: retryAfter, limit_scope: 'cu_allowance', limit_window_seconds: retryAfter },
        },
        { 'Retry-After': String(retryAfter) },
      );
    }
    return undefined;
  };

  return { authenticate, forbidden, throttle, allowanceExceeded };
}
