import type { Context, MiddlewareHandler } from 'hono';
import type { Env } from '../env.js';

/** The headers a browser script on an allowed origin may send, and those it may read from an answer. */
const CORS_REQUEST_HEADERS = 'Authorization, Content-Type, X-Request-Id, X-Project-Id';
const CORS_EXPOSED_HEADERS = 'X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, Retry-After, WWW-Authenticate';

/** Seconds a browser may keep a preflight's answer. */
const PREFLIGHT_MAX_AGE = 600;

/**
 * The methods each path of an app answers, from its route table (middleware, registered for
 * `ALL`, left out): a GET route answers HEAD too, and every known path answers OPTIONS.
 */
export function methodsByPath(routes: ReadonlyArray<{ method: string; path: string }>): Map<string, string[]> {
  const byPath = new Map<string, Set<string>>();
  for (const { method, path } of routes) {
    if (method === 'ALL') continue;
    const methods = byPath.get(path) ?? new Set<string>();
    methods.add(method);
    if (method === 'GET') methods.add('HEAD');
    byPath.set(path, methods);
  }
  return new Map([...byPath].map(([path, methods]) => [path, [...methods, 'OPTIONS']]));
}

/**
 * The paths of a route table that a GET answers, in the order they are declared, as a 404 names them: less the root (a
 * redirect to the reference page) and a path below another of them (the reference page's scripts, below `/docs`).
 */
export function getPaths(routes: ReadonlyArray<{ method: string; path: string }>): string[] {
  const gets = [...new Set(routes.filter((route) => route.method === 'GET' && route.path !== '/').map((r) => r.path))];
  return gets.filter((path) => !gets.some((other) => path.startsWith(`${other}/`)));
}

/** Whether a browser script on `origin` may call this server: it is listed in `cors_origins`, or `*` is. */
const originAllowed = (origin: string | undefined, allowed: readonly string[]): origin is string =>
  origin !== undefined && (allowed.includes('*') || allowed.includes(origin));

/**
 * CORS for the origins of `cors_origins` (none by default): an answer to a request from one of
 * them says that origin may read it, and which headers it may read. Credentials are bearer keys
 * sent by the script, never cookies, so no `Access-Control-Allow-Credentials`.
 */
export function corsHeaders(allowed: readonly string[]): MiddlewareHandler<Env> {
  return async (c, next) => {
    await next();
    const origin = c.req.header('origin');
    if (allowed.length > 0) c.res.headers.append('Vary', 'Origin');
    if (!originAllowed(origin, allowed)) return;
    c.res.headers.set('Access-Control-Allow-Origin', origin);
    c.res.headers.set('Access-Control-Expose-Headers', CORS_EXPOSED_HEADERS);
  };
}

/**
 * The answer to OPTIONS on a known path: 204 with `Allow`, and for a CORS preflight from an
 * allowed origin, the methods and headers it may use (the origin itself is added by `corsHeaders`).
 */
export function answerOptions(c: Context<Env>, methods: readonly string[], allowed: readonly string[]): Response {
  const headers: Record<string, string> = { Allow: methods.join(', ') };
  const preflight = c.req.header('access-control-request-method') !== undefined;
  if (preflight && originAllowed(c.req.header('origin'), allowed)) {
    headers['Access-Control-Allow-Methods'] = methods.join(', ');
    headers['Access-Control-Allow-Headers'] = CORS_REQUEST_HEADERS;
    headers['Access-Control-Max-Age'] = String(PREFLIGHT_MAX_AGE);
  }
  return c.body(null, 204, headers);
}
