import type { MiddlewareHandler } from 'hono';
import type { AppDeps, Env } from '../env.js';
import { ApiProblem } from '../responses.js';

/**
 * The account's requests per second, shared by its keys: takes one of its tokens, or throws the 429 with Retry-After;
 * every answer says what is left (`X-RateLimit-Limit`, `X-RateLimit-Remaining`). After `authenticate`, which sets the
 * account.
 *
 * @example
 * app.post('/evm/verify/logs-bloom', authenticate(deps), rateLimit(deps), handler)
 */
export function rateLimit({ store, now }: Pick<AppDeps, 'store' | 'now'>): MiddlewareHandler<Env> {
  return async (c, next) => {
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
}
