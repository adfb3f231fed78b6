import type { Problem } from '../input/values/problems.js';

/** The spec's error object: `{ error: ApiError }`. */
export interface ApiError {
  code: string;
  http_status: number;
  message: string;
  hint: string;
  severity: 'error' | 'warning' | 'critical';
  retryable: boolean;
  details: Record<string, unknown> | null;
  docs_url: string;
}

export interface ErrorEnvelope {
  error: ApiError;
}

/** Where `docs_url` points unless the server is configured otherwise: its own reference page. */
export const DEFAULT_DOCS_URL = 'http://127.0.0.1:8080/v1/docs';

/** What an endpoint operation needs from its surroundings (server or CLI). */
export interface OperationContext {
  /** The reference page that error envelopes link to. */
  docsUrl?: string;
}

/** Builds an error envelope; `docs_url` points at the code's section of the reference page. */
export function errorEnvelope(
  fields: Omit<ApiError, 'docs_url' | 'severity' | 'retryable'> & Partial<Pick<ApiError, 'severity' | 'retryable'>>,
  context: OperationContext = {},
): ErrorEnvelope {
  return {
    error: {
      code: fields.code,
      http_status: fields.http_status,
      message: fields.message,
      hint: fields.hint,
      severity: fields.severity ?? 'error',
      retryable: fields.retryable ?? fields.http_status >= 500,
      details: fields.details,
      docs_url: `${context.docsUrl ?? DEFAULT_DOCS_URL}#error-${fields.code.toLowerCase()}`,
    },
  };
}

/**
 * One entry of a 400's `details.invalid_parameters[]`: a problem of the body (a path into it), or
 * of a request header (`location: 'header'`, `name` the header's, such as `Content-Type`).
 */
export interface InvalidParameter extends Omit<Problem, 'location'> {
  location: 'body' | 'header';
}

/** `text` ended as a sentence: its own `?` kept (a "did you mean"), else one full stop. */
const sentence = (text: string) => (text.endsWith('?') ? text : `${text.replace(/\.$/, '')}.`);

/** 400 listing every invalid parameter (up to 100 of `count`). */
export function badRequest(
  problems: readonly InvalidParameter[],
  count: number,
  context: OperationContext = {},
): ErrorEnvelope {
  const first = problems[0];
  const message =
    count === 1 && first !== undefined
      ? `Invalid parameter ${first.name}: expected ${sentence(first.expected)}`
      : `${count} invalid parameters${count > problems.length ? ` (the first ${problems.length} are listed)` : ''}.`;
  return errorEnvelope(
    {
      code: 'BAD_REQUEST',
      http_status: 400,
      message,
      hint: 'Fix every parameter listed in details.invalid_parameters and send the request again.',
      details: { invalid_parameters: problems },
    },
    context,
  );
}

/** The outcome of an endpoint operation: HTTP status and JSON body, the same for server and CLI. */
export interface OperationResult {
  status: number;
  body: unknown;
  /**
   * For exit codes: whether every claim the input made held, did not, the input was
   * rejected, or its chain or era cannot be verified.
   */
  verdict: 'identical' | 'different' | 'invalid' | 'not_verifiable';
}
