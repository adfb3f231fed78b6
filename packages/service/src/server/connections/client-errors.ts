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

/** A response Node's server has in progress on a socket (node:_http_server), and its request. */
interface InProgress extends Writable {
  headersSent: boolean;
  req?: { complete: boolean };
}

/**
 * Answers the connections whose bytes Node's HTTP parser refuses (a conflicting Content-Length, a chunked body that is
 * not, a body cut short by the end of the connection, headers over `maxHeaderSize`, …) with the service's error
 * envelope instead of Node's empty `400` or `431`: `MALFORMED_REQUEST` naming what was wrong, or
 * `REQUEST_HEADER_FIELDS_TOO_LARGE`. As Node does, only while the socket is writable and no answer has begun on it (an
 * answer half sent must not be corrupted), and the socket is then destroyed with the error, which the request log
 * reads. Bytes refused after a whole request of the same connection (a pipelined request behind it) are a later
 * request's: the one in progress is answered first, then the envelope. The headers were not read, so `docs_url` is
 * under `publicUrl` or relative. A request timed out at its deadline keeps Node's own `408 Request Timeout`; any other
 * error (a reset, a shutdown's cut) is not answered.
 */
export function answerClientErrors(server: Server, publicUrl: string | null): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket & { _httpMessage?: InProgress | null }) => {
    // `_httpMessage`: the response Node's server has in progress on the socket (node:_http_server), as its own check.
    const inProgress = socket._httpMessage ?? undefined;
    if (isParseError(error) && inProgress?.req?.complete === true && !inProgress.writableFinished) {
      // Its request was whole: the parser refused the next one. Once its answer is written, this one's is.
      inProgress.once('finish', () => answer(error, socket, publicUrl));
      return;
    }
    if (inProgress?.headersSent !== true) answer(error, socket, publicUrl);
    else socket.destroy(error); // an answer half sent must not be corrupted
  });
}

/** Writes the answer to `error` on `socket` (nothing for an error that has none), then destroys it with `error`. */
function answer(error: NodeJS.ErrnoException, socket: Socket, publicUrl: string | null): void {
  // With a listener, Node writes nothing itself: its 408 is written here, byte for byte.
  if (socket.writable && error.code === 'ERR_HTTP_REQUEST_TIMEOUT')
    socket.write(`HTTP/1.1 408 ${STATUS_CODES[408]}\r\nConnection: close\r\n\r\n`);
  else if (socket.writable && isParseError(error))
    writeEnvelope(socket, problemOf(error), docsUrlOf(publicUrl, undefined));
  socket.destroy(error);
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
