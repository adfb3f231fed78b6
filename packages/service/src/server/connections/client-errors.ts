import { type IncomingMessage, maxHeaderSize, type Server, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Writable } from 'node:stream';
import { errorEnvelope } from 'evm-integrity/api';
import { notFound, type ProblemFields } from '../responses.js';
import { docsUrlOf } from '../openapi/docs-url.js';

/**
 * What was wrong with a request's HTTP framing, as `details.framing_problem` tells it: the connection ended before
 * the request was whole, its Content-Length or Transfer-Encoding cannot frame a body, its chunked body is not chunked
 * coding, or a line of it is not HTTP/1.1 at all.
 */
type FramingProblem =
  'incomplete_request' | 'content_length' | 'transfer_encoding' | 'chunked_body' | 'http2' | 'syntax';

/** Node's parser errors (llhttp's `HPE_` codes) that name a framing problem other than `syntax`. */
const PROBLEMS: Readonly<Record<string, FramingProblem>> = {
  HPE_INVALID_EOF_STATE: 'incomplete_request',
  HPE_UNEXPECTED_CONTENT_LENGTH: 'content_length',
  HPE_INVALID_CONTENT_LENGTH: 'content_length',
  HPE_INVALID_TRANSFER_ENCODING: 'transfer_encoding',
  HPE_INVALID_CHUNK_SIZE: 'chunked_body',
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 'chunked_body',
  // HTTP/2 with prior knowledge: its preface, `PRI * HTTP/2.0`.
  HPE_PAUSED_H2_UPGRADE: 'http2',
};

/** A socket error of Node's HTTP parser: its `HPE_` code and llhttp's reason ("Duplicate Content-Length"). */
interface ParseError extends NodeJS.ErrnoException {
  reason?: string;
}

/** Whether `error` is Node's HTTP parser refusing the bytes it was sent (not the socket failing, not a deadline). */
const isParseError = (error: NodeJS.ErrnoException | null | undefined): error is ParseError =>
  error?.code?.startsWith('HPE_') === true;

/** The error envelope's members for a request Node's parser refused with `error`. */
function problemOf(error: ParseError): ProblemFields {
  if (error.code === 'HPE_HEADER_OVERFLOW')
    return {
      code: 'REQUEST_HEADER_FIELDS_TOO_LARGE',
      http_status: 431,
      message: `The request line and headers are over the server's limit of ${maxHeaderSize} bytes.`,
      hint: 'Send fewer or shorter headers (an API key and Content-Type are all a request needs).',
      retryable: false,
      details: { max_header_bytes: maxHeaderSize },
    };
  const problem = PROBLEMS[error.code!] ?? 'syntax';
  if (problem === 'http2')
    return {
      code: 'MALFORMED_REQUEST',
      http_status: 400,
      message: 'The request is HTTP/2 (its connection preface, PRI * HTTP/2.0); this server serves HTTP/1.1 only.',
      hint: 'Send the request as HTTP/1.1 (curl --http1.1; no HTTP/2 prior knowledge).',
      retryable: false,
      details: { framing_problem: problem, parser_error: error.code },
    };
  const message =
    problem === 'incomplete_request'
      ? 'The connection ended before the request was complete: its headers, or a body shorter than its Content-Length or its chunks declared.'
      : `The request cannot be read as HTTP/1.1: ${error.reason ?? error.message}.`;
  return {
    code: 'MALFORMED_REQUEST',
    http_status: 400,
    message,
    hint: 'The HTTP client or a proxy on the way sent bytes that are not a valid HTTP/1.1 request; send the request again with one Content-Length matching the body, or a valid chunked body.',
    retryable: false,
    details: { framing_problem: problem, parser_error: error.code },
  };
}

/**
 * The status the server answered a request's connection with when Node's parser refused its bytes (400 or 431,
 * answerClientErrors); undefined for any other error of the socket.
 */
export function malformedStatus(error: NodeJS.ErrnoException | null | undefined): number | undefined {
  return isParseError(error) ? problemOf(error).http_status : undefined;
}

/** A response Node's server has in progress on a socket (node:_http_server). */
interface InProgress extends Writable {
  headersSent: boolean;
}

/** A response of a request Node's server has parsed: its request is whole once its body has all been read. */
interface Owed extends Writable {
  req: { complete: boolean };
}

/** Calls `then` once `response` is written whole (finish), or can no longer be (close: its connection went). */
const onAnswered = (response: Owed, then: () => void) => {
  response.once('finish', then);
  response.once('close', then);
};

/**
 * Answers the connections whose bytes Node's HTTP parser refuses (a conflicting Content-Length, a chunked body that is
 * not, a body cut short by the end of the connection, headers over `maxHeaderSize`, …) with the service's error
 * envelope instead of Node's empty `400` or `431`: `MALFORMED_REQUEST` naming what was wrong, or
 * `REQUEST_HEADER_FIELDS_TOO_LARGE`; and the request Node cuts off at its deadline with `408 REQUEST_TIMEOUT`, not its
 * bare `408`. The socket is then destroyed with the error, which the request log reads. Bytes refused, or a request cut
 * off, behind whole requests of the same connection (pipelined ones ahead of it) are a later request's: Node has
 * parsed those and answers them in order, so the envelope waits until every one of them is answered (destroying the
 * socket sooner dropped them, verified and perhaps charged). As Node does, the envelope is written only while the
 * socket is writable and no answer has begun on it (an answer half sent must not be corrupted). The headers were not
 * read, so `docs_url` is under `publicUrl` or relative. Any other error (a reset, a shutdown's cut) is not answered.
 */
export function answerClientErrors(server: Server, publicUrl: string | null, deadlines: Deadlines): void {
  // Each connection's requests parsed and not yet answered, in the order Node parsed (and answers) them.
  const owed = new WeakMap<Socket, Set<Owed>>();
  server.on('request', (request: IncomingMessage, response: Owed) => {
    let responses = owed.get(request.socket);
    if (responses === undefined) owed.set(request.socket, (responses = new Set()));
    responses.add(response);
    onAnswered(response, () => responses.delete(response));
  });
  // Once refused, the parser refuses every later read of the connection again: it is answered once.
  const refused = new WeakSet<Socket>();
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket & { _httpMessage?: InProgress | null }) => {
    const problem = problemOfError(error, deadlines);
    if (problem === undefined) return void socket.destroy(error);
    if (refused.has(socket)) return;
    refused.add(socket);
    const answer = () => {
      // `_httpMessage`: the response Node's server has in progress on the socket (node:_http_server), as its own check.
      if (socket.writable && socket._httpMessage?.headersSent !== true)
        writeEnvelope(socket, problem, docsUrlOf(publicUrl, undefined));
      socket.destroy(error);
    };
    // A request not yet whole is the one refused (or cut off): only the whole ones ahead of it are owed an answer.
    const ahead = [...(owed.get(socket) ?? [])].filter((response) => response.req.complete);
    // With none, at once: before anything else is written on the socket (a `100 Continue` to a client that ended its side).
    if (ahead.length === 0) answer();
    else
      void Promise.all(ahead.map((response) => new Promise<void>((resolve) => onAnswered(response, resolve)))).then(
        answer,
      );
  });
}

/** The deadlines of a request's arrival (ServerConfig's), which a 408 names. */
export interface Deadlines {
  headerTimeoutMs: number;
  bodyTimeoutMs: number;
}

/**
 * The error envelope's members for a request Node's server ends with `error`: refused by its parser, or cut off at a
 * deadline; undefined for any other error of a socket (a reset), which has no answer.
 */
function problemOfError(error: NodeJS.ErrnoException, deadlines: Deadlines): ProblemFields | undefined {
  if (isParseError(error)) return problemOf(error);
  if (error.code !== 'ERR_HTTP_REQUEST_TIMEOUT') return undefined;
  return {
    code: 'REQUEST_TIMEOUT',
    http_status: 408,
    message: `The request did not arrive in time: its headers within ${deadlines.headerTimeoutMs} ms (header_timeout_ms), or all of it within ${deadlines.bodyTimeoutMs} ms (body_timeout_ms), of its first byte.`,
    hint: 'Send the request at once, as soon as it is begun: a client that pauses mid-request, or a link too slow for the body, is cut off. Sent again without the pause, it is answered.',
    retryable: true,
    details: { header_timeout_ms: deadlines.headerTimeoutMs, body_timeout_ms: deadlines.bodyTimeoutMs },
  };
}

/** Writes the error envelope of `fields` on `socket` as a whole answer that closes the connection. */
function writeEnvelope(socket: Socket, fields: ProblemFields, docsUrl: string): void {
  const body = JSON.stringify(errorEnvelope(fields, { docsUrl }));
  socket.write(
    `HTTP/1.1 ${fields.http_status} ${STATUS_CODES[fields.http_status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** The hint of a CONNECT's 404: the server answers its own paths only. */
const NO_PROXY = 'This server is no proxy: it answers its own endpoints, listed at GET /v1/openapi.json.';

/**
 * Answers `CONNECT` (which Node hands to a `connect` listener, or else closes without a word) as every method no route
 * serves: 404 `NOT_FOUND` with the envelope (DECISIONS); the server is no proxy. The connection is closed after it.
 */
export function answerConnect(server: Server, publicUrl: string | null): void {
  server.on('connect', (request: IncomingMessage, socket: Socket) => {
    // A CONNECT's Host names where it wants to go, not this server: the link is under `publicUrl` or relative.
    const docsUrl = docsUrlOf(publicUrl, undefined);
    const problem = notFound('CONNECT', request.url ?? '', { hint: NO_PROXY });
    if (socket.writable) writeEnvelope(socket, problem.fields, docsUrl);
    socket.end();
  });
}
