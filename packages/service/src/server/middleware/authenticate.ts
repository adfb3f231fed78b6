import type { MiddlewareHandler } from 'hono';
import { ANONYMOUS_ACCOUNT, type AppDeps, type Env } from '../env.js';
import { ApiProblem } from '../responses.js';
import type { Account } from '../../store/store.js';

const AUTH_DETAILS = {
  auth_scheme: 'Bearer',
  expected_header: 'Authorization: Bearer <API_KEY>',
};

type TokenStatus = 'missing' | 'malformed' | 'unknown' | 'revoked';

/**
 * What the 401 says of the Authorization header it got: its scheme when it is a known one, and
 * nothing else, neither a character nor the length of the credential (which may belong to another
 * service); an empty header (or only spaces) holds no credential to redact: `""`.
 */
function redact(header: string): string {
  if (header.trim() === '') return '';
  const scheme = /^(Bearer|Basic|Token|Digest)(?:\s|$)/i.exec(header.trim())?.[1];
  return scheme === undefined ? '[redacted]' : `${scheme} [redacted]`;
}

/** The RFC 6750 challenge: no error code when no credential was sent, as section 3.1 asks. */
function challenge(status: TokenStatus): string {
  const realm = 'Bearer realm="evm-integrity"';
  if (status === 'missing') return realm;
  return `${realm}, error="${status === 'malformed' ? 'invalid_request' : 'invalid_token'}"`;
}

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

/** The 401 of a request whose account was deleted while it was in progress: its key is unknown from then on. */
export const accountDeleted = (header: string | undefined): ApiProblem =>
  unauthorized(header, 'unknown', 'The API key is not known to this server: its account was deleted.');

/**
 * Resolves the bearer key of the Authorization header to the account it belongs to and sets it on the context
 * (`c.get('account')`), or throws the 401 (missing, malformed, unknown or revoked key). With `auth` off, every request
 * is the anonymous account's.
 *
 * @example
 * app.get('/usage', authenticate({ config, store }), (c) => c.json({ plan: c.get('account')!.plan }))
 */
export function authenticate({ config, store }: Pick<AppDeps, 'config' | 'store'>): MiddlewareHandler<Env> {
  const accountOf = async (header: string | undefined): Promise<Account> => {
    if (!config.auth) {
      const account = await store.getAccount(ANONYMOUS_ACCOUNT);
      if (account === undefined) throw new Error('auth is off but the anonymous account is missing');
      return account;
    }
    if (header === undefined) throw unauthorized(header, 'missing', 'No API key: the Authorization header is missing.');
    if (header.trim() === '') throw unauthorized(header, 'missing', 'No API key: the Authorization header is empty.');
    const match = /^Bearer +(\S+)$/i.exec(header.trim());
    // Headers given twice reach the app joined by a comma (the Fetch API's rule): said so, not that the form or the key
    // is wrong, unless the whole value is a key (a configuration's key may hold a comma).
    const twice = header.includes(',');
    const givenTwice = 'The Authorization header is given more than once: send one, "Bearer <API_KEY>".';
    if (match === null)
      throw unauthorized(
        header,
        'malformed',
        twice ? givenTwice : 'The Authorization header is not "Bearer <API_KEY>".',
      );
    const result = await store.authenticate(match[1]!);
    if (result.status === 'unknown' && twice) throw unauthorized(header, 'malformed', givenTwice);
    if (result.status === 'unknown') throw unauthorized(header, 'unknown', 'The API key is not known to this server.');
    if (result.status === 'revoked') throw unauthorized(header, 'revoked', 'The API key was revoked.');
    return result.account;
  };

  return async (c, next) => {
    c.set('account', await accountOf(c.req.header('authorization')));
    await next();
  };
}
