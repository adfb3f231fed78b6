import type { MiddlewareHandler } from 'hono';
import { cuOf, type Endpoint } from '../../endpoints/endpoints.js';
import { ANONYMOUS_ACCOUNT, type AppDeps, type Env } from '../env.js';
import { ApiProblem } from '../responses.js';
import { allowanceUsedUp, cuAllowance, cuRemaining, exceedsAllowance } from '../../store/periods.js';
import type { Account, Usage } from '../../store/store.js';

/**
 * The Retry-After of a 429 for CU held by requests in progress: a request is verified within about a second, even a
 * large one, and ends charged or giving its CU back.
 */
export const HELD_RETRY_AFTER_SECONDS = 1;

const AUTH_DETAILS = {
  auth_scheme: 'Bearer',
  expected_header: 'Authorization: Bearer <API_KEY>',
};

type TokenStatus = 'missing' | 'malformed' | 'unknown' | 'revoked';

/**
 * What the 401 says of the Authorization header it got: its scheme when it is a known one, and
 * nothing else, neither a character nor the length of the credential (which may belong to another
 * service).
 */
function redact(header: string): string {
  const scheme = /^(Bearer|Basic|Token|Digest)(?:\s|$)/i.exec(header.trim())?.[1];
  return scheme === undefined ? '[redacted]' : `${scheme} [redacted]`;
}

/** The RFC 6750 challenge: no error code when no credential was sent, as section 3.1 asks. */
function challenge(status: TokenStatus): string {
  const realm = 'Bearer realm="evm-integrity"';
  if (status === 'missing') return realm;
  return `${realm}, error="${status === 'malformed' ? 'invalid_request' : 'invalid_token'}"`;
}

/** 403: the account's entitlements exclude `what` (an endpoint or a chain). */
export const forbidden = (account: Account, what: string) =>
  new ApiProblem({
    code: 'FORBIDDEN',
    http_status: 403,
    message: `This account's entitlements do not include ${what}.`,
    hint: "Ask the operator to extend the account's entitlements.",
    severity: 'warning',
    retryable: false,
    details: {
      required_plan: 'an account entitled to it',
      your_plan: account.plan,
      contact: 'the operator of this server',
      recommendation: `Use a key of an account entitled to ${what}.`,
    },
  });

function unauthorized(header: string | undefined, status: TokenStatus, message: string): ApiProblem {
  return new ApiProblem(
    {
      code: 'UNAUTHORIZED',
      http_status: 401,
      message,
      hint: 'Send the API key from `evm-integrity keys create` as Authorization: Bearer <API_KEY>.',
      retryable: false,
      details: {
        ...AUTH_DETAILS,
        provided_header: header === undefined ? null : redact(header),
        token_status: status,
        recommendation:
          status === 'revoked'
            ? 'This key was revoked; use another active key of the account.'
            : 'Check the key and the header format.',
      },
    },
    { 'WWW-Authenticate': challenge(status) },
  );
}

/**
 * The checks a request passes before its work: the key (401), the entitlements (403), the
 * account's requests per second and its CU allowance (429). Each is a middleware that lets the
 * request through or throws the answer; `authenticate` sets the account on the context.
 *
 * @example
 * app.post('/evm/verify/logs-bloom', guards.authenticate, guards.entitled(endpoint), guards.throttle, handler)
 */
export function createGuards({ config, store, now }: Pick<AppDeps, 'config' | 'store' | 'now'>) {
  const accountOf = async (header: string | undefined): Promise<Account> => {
    if (!config.auth) {
      const account = await store.getAccount(ANONYMOUS_ACCOUNT);
      if (account === undefined) throw new Error('auth is off but the anonymous account is missing');
      return account;
    }
    if (header === undefined || header.trim() === '')
      throw unauthorized(header, 'missing', 'No API key: the Authorization header is missing.');
    const match = /^Bearer +(\S+)$/i.exec(header.trim());
    if (match === null) throw unauthorized(header, 'malformed', 'The Authorization header is not "Bearer <API_KEY>".');
    const result = await store.authenticate(match[1]!);
    if (result.status === 'unknown') throw unauthorized(header, 'unknown', 'The API key is not known to this server.');
    if (result.status === 'revoked') throw unauthorized(header, 'revoked', 'The API key was revoked.');
    return result.account;
  };

  /** Resolves the bearer key to the account it belongs to. */
  const authenticate: MiddlewareHandler<Env> = async (c, next) => {
    c.set('account', await accountOf(c.req.header('authorization')));
    await next();
  };

  /** The account may use `endpoint`. */
  const entitled =
    (endpoint: Endpoint): MiddlewareHandler<Env> =>
    async (c, next) => {
      const account = c.get('account')!;
      const endpoints = account.entitlements?.endpoints;
      if (endpoints !== undefined && !endpoints.includes(endpoint.name))
        throw forbidden(account, `the endpoint ${endpoint.name}`);
      await next();
    };

  /** Per-account requests per second, shared by its keys; every answer says what is left. */
  const throttle: MiddlewareHandler<Env> = async (c, next) => {
    const account = c.get('account')!;
    const token = await store.takeRateToken(account.id, account.rateLimitRps, now().getTime());
    const headers = {
      'X-RateLimit-Limit': String(token.limit),
      'X-RateLimit-Remaining': String(Math.max(0, token.remaining)),
    };
    if (!token.allowed) {
      throw new ApiProblem(
        {
          code: 'RATE_LIMIT_EXCEEDED',
          http_status: 429,
          message: `More than ${token.limit} requests per second for this account.`,
          hint: 'Wait Retry-After seconds, then back off exponentially. The limit is shared by all keys of the account.',
          severity: 'warning',
          retryable: true,
          details: {
            limit_rps: token.limit,
            current_estimated_rps: token.count,
            retry_after_seconds: token.retryAfterSeconds,
            limit_scope: 'account',
            limit_window_seconds: 1,
          },
        },
        { ...headers, 'Retry-After': String(token.retryAfterSeconds) },
      );
    }
    for (const [name, value] of Object.entries(headers)) c.header(name, value);
    await next();
  };

  /** Seconds until the account's period resets (at least 1). */
  const secondsUntilReset = (usage: Usage) =>
    Math.max(1, Math.ceil((Date.parse(usage.periodEnd) - now().getTime()) / 1000));

  /**
   * The 429 of an account whose CU allowance is used up, from its usage. Waiting a few seconds does
   * not cure it: `retryable` is false, and the details say what does (an operator adds CU, or the
   * period resets at `cu_reset_at`, which `Retry-After` counts down to, as the spec has it).
   */
  const usedUpProblem = (account: Account, usage: Usage): ApiProblem => {
    const retryAfter = secondsUntilReset(usage);
    const allowance = cuAllowance(usage);
    return new ApiProblem(
      {
        code: 'RATE_LIMIT_EXCEEDED',
        http_status: 429,
        message: `The account's compute-unit allowance (${allowance} CU) is used up until ${usage.periodEnd}; retrying before then gets the same answer.`,
        hint: 'Do not retry on a timer: have the operator add CU (evm-integrity accounts add-cu), or send again after cu_reset_at.',
        severity: 'warning',
        retryable: false,
        details: {
          limit_scope: 'cu_allowance',
          limit_rps: account.rateLimitRps,
          current_estimated_rps: null,
          retry_after_seconds: retryAfter,
          limit_window_seconds: retryAfter,
          cu_limit: allowance,
          cu_used: usage.cuUsed,
          cu_held: usage.cuHeld,
          cu_reset_at: usage.periodEnd,
          resolution: [
            'An operator adds CU to the account (evm-integrity accounts add-cu).',
            'The allowance resets at cu_reset_at.',
          ],
        },
      },
      { 'Retry-After': String(retryAfter) },
    );
  };

  /**
   * The 429 of an account whose allowance has room for the request once the requests it has in progress end, but
   * not while they hold their CU: those are charged or come back within seconds, so it is retryable, after
   * HELD_RETRY_AFTER_SECONDS.
   */
  const heldProblem = (account: Account, usage: Usage): ApiProblem => {
    const allowance = cuAllowance(usage);
    return new ApiProblem(
      {
        code: 'RATE_LIMIT_EXCEEDED',
        http_status: 429,
        message: `The account's compute-unit allowance (${allowance} CU) has ${cuRemaining(usage)} CU left, ${usage.cuHeld} of them held by requests in progress; they are charged or come back as those requests end.`,
        hint: 'Retry after Retry-After seconds, backing off exponentially; fewer requests at once leave more room.',
        severity: 'warning',
        retryable: true,
        details: {
          limit_scope: 'cu_allowance',
          limit_rps: account.rateLimitRps,
          current_estimated_rps: null,
          retry_after_seconds: HELD_RETRY_AFTER_SECONDS,
          limit_window_seconds: secondsUntilReset(usage),
          cu_limit: allowance,
          cu_used: usage.cuUsed,
          cu_held: usage.cuHeld,
          cu_reset_at: usage.periodEnd,
          resolution: ['The requests in progress end: their CU are charged or come back.'],
        },
      },
      { 'Retry-After': String(HELD_RETRY_AFTER_SECONDS) },
    );
  };

  /**
   * The 429 of a request of `cu` CU that the allowance cannot pay now (exceedsAllowance): used up (not retryable)
   * when the CU charged alone leave no room, else held by requests in progress (retryable at once).
   */
  const allowanceProblem = (account: Account, usage: Usage, cu: number): ApiProblem =>
    allowanceUsedUp(usage, cu) ? usedUpProblem(account, usage) : heldProblem(account, usage);

  /**
   * Refuses, before its body is read, a request that the account's allowance cannot pay for: at
   * the CU of the body its Content-Length declares (the body can be no longer: Node ends a request
   * at its Content-Length), else at the endpoint's least. The reservation after the read is what
   * counts; this spares reading a body that would be refused.
   */
  const affordable =
    (endpoint: Endpoint): MiddlewareHandler<Env> =>
    async (c, next) => {
      const account = c.get('account')!;
      const declared = Number(c.req.header('content-length'));
      const cu = Number.isSafeInteger(declared) && declared >= 0 ? cuOf(endpoint, declared) : endpoint.cu;
      const usage = await store.usage(account.id, now());
      if (exceedsAllowance(usage, cu)) throw allowanceProblem(account, usage, cu);
      await next();
    };

  return { authenticate, entitled, throttle, affordable, allowanceProblem };
}
