import type { MiddlewareHandler } from 'hono';
import { cuOf, cuRuleOf, type Endpoint } from '../../endpoints/endpoints.js';
import type { AppDeps, Env } from '../env.js';
import { ApiProblem } from '../responses.js';
import { allowanceUsedUp, cuAllowance, cuRemaining, exceedsAllowance } from '../../store/periods.js';
import type { Account, Usage } from '../../store/store.js';

/**
 * The Retry-After of a 429 for CU held by requests in progress: a request is verified within about a second, even a
 * large one, and ends charged or giving its CU back.
 */
export const HELD_RETRY_AFTER_SECONDS = 1;

/** Seconds until the account's period resets (at least 1). */
const secondsUntilReset = (usage: Usage, now: () => Date) =>
  Math.max(1, Math.ceil((Date.parse(usage.periodEnd) - now().getTime()) / 1000));

/**
 * The 429 of a request of `cu` CU that the CU not charged cannot pay for: none left (the allowance is used up), or
 * fewer than the request costs (a smaller body, of an endpoint charged by the MiB, may fit). Waiting a few seconds does
 * not cure it: `retryable` is false, and the details say what does (an operator adds CU, or the period resets at
 * `cu_reset_at`, which `Retry-After` counts down to, as the spec has it).
 */
function usedUpProblem(account: Account, usage: Usage, endpoint: Endpoint, cu: number, now: () => Date): ApiProblem {
  const retryAfter = secondsUntilReset(usage, now);
  const allowance = cuAllowance(usage);
  const left = cuRemaining(usage);
  const rule = cuRuleOf(endpoint);
  const cost = `${cu} CU${rule === undefined ? '' : ` (${rule})`}`;
  const message =
    left === 0
      ? `The account's compute-unit allowance (${allowance} CU) is used up until ${usage.periodEnd}: this request costs ${cost}; retrying it before then gets the same answer.`
      : `This request costs ${cost}, more than the ${left} CU left of the account's compute-unit allowance (${allowance} CU) until ${usage.periodEnd}; retrying it before then gets the same answer.`;
  return new ApiProblem(
    {
      code: 'RATE_LIMIT_EXCEEDED',
      http_status: 429,
      message,
      hint: `Do not retry on a timer: have the operator add CU (evm-integrity accounts add-cu), or send again after cu_reset_at${left > 0 && rule !== undefined ? `; a request of ${left} CU or fewer (a smaller body) fits now` : ''}.`,
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
}

/**
 * The 429 of an account whose allowance has room for the request once the requests it has in progress end, but
 * not while they hold their CU: those are charged or come back within seconds, so it is retryable, after
 * HELD_RETRY_AFTER_SECONDS.
 */
function heldProblem(account: Account, usage: Usage, now: () => Date): ApiProblem {
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
        limit_window_seconds: secondsUntilReset(usage, now),
        cu_limit: allowance,
        cu_used: usage.cuUsed,
        cu_held: usage.cuHeld,
        cu_reset_at: usage.periodEnd,
        resolution: ['The requests in progress end: their CU are charged or come back.'],
      },
    },
    { 'Retry-After': String(HELD_RETRY_AFTER_SECONDS) },
  );
}

/**
 * The 429 of a request to `endpoint` of `cu` CU that the allowance cannot pay now (exceedsAllowance): not retryable
 * when the CU charged alone leave no room for it, else held by requests in progress (retryable at once). `now` is the
 * app's clock, for the seconds until the period resets.
 */
export const allowanceProblem = (
  account: Account,
  usage: Usage,
  endpoint: Endpoint,
  cu: number,
  now: () => Date,
): ApiProblem =>
  allowanceUsedUp(usage, cu) ? usedUpProblem(account, usage, endpoint, cu, now) : heldProblem(account, usage, now);

/**
 * Refuses (429), before its body is read, a request that the account's CU allowance cannot pay for: at the CU of the
 * body its Content-Length declares (the body can be no longer: Node ends a request at its Content-Length), else at
 * `endpoint`'s least. The reservation after the read is what counts; this spares reading a body that would be refused.
 * After `authenticate`, which sets the account.
 *
 * @example
 * app.post('/evm/verify/logs-bloom', authenticate(deps), withinAllowance(deps, endpoint), handler)
 */
export function withinAllowance(
  { store, now }: Pick<AppDeps, 'store' | 'now'>,
  endpoint: Endpoint,
): MiddlewareHandler<Env> {
  return async (c, next) => {
    const account = c.get('account')!;
    const declared = Number(c.req.header('content-length'));
    const cu = Number.isSafeInteger(declared) && declared >= 0 ? cuOf(endpoint, declared) : endpoint.cu;
    const usage = await store.usage(account.id, now());
    if (exceedsAllowance(usage, cu)) throw allowanceProblem(account, usage, endpoint, cu, now);
    await next();
  };
}
