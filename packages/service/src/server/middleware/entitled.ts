import type { MiddlewareHandler } from 'hono';
import type { Endpoint } from '../../endpoints/endpoints.js';
import type { Env } from '../env.js';
import { ApiProblem } from '../responses.js';
import type { Account } from '../../store/store.js';

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

/**
 * Lets through a request of an account entitled to `endpoint` (one without a list of endpoints may use them all), or
 * throws the 403. After `authenticate`, which sets the account.
 *
 * @example
 * app.post('/evm/verify/logs-bloom', authenticate(deps), entitled(endpoint), handler)
 */
export function entitled(endpoint: Endpoint): MiddlewareHandler<Env> {
  return async (c, next) => {
    const account = c.get('account')!;
    const endpoints = account.entitlements?.endpoints;
    if (endpoints !== undefined && !endpoints.includes(endpoint.name))
      throw forbidden(account, `the endpoint ${endpoint.name}`);
    await next();
  };
}
