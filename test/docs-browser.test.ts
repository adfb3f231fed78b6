import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS } from '../packages/service/src/endpoints/endpoints.js';
import { ERROR_CODES } from '../packages/service/src/server/openapi/document.js';
import { startServer, type RunningServer } from '../packages/service/src/server/start-server.js';
import { capturingLogger, testConfig } from './helpers/server.js';

/** What headless Chromium saw of a page: its DOM once scripts ran, and the URLs the page itself requested. */
interface Visit {
  dom: string;
  pageRequests: string[];
}

/** Loads `url` in headless Chromium (Debian's `chromium`; .ci/run installs it), logging the network. */
function visit(url: string, origin: string): Promise<Visit> {
  const dir = mkdtempSync(join(tmpdir(), 'docs-browser-'));
  const netLog = join(dir, 'net.json');
  const args = [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    `--user-data-dir=${dir}`,
    // Scalar lays an operation out when it nears the viewport: a tall one shows the whole document.
    '--window-size=1280,20000',
    '--virtual-time-budget=10000',
    `--log-net-log=${netLog}`,
    '--dump-dom',
    url,
  ];
  return new Promise((resolve, reject) => {
    execFile('chromium', args, { timeout: 60_000, maxBuffer: 64 * 1024 * 1024 }, (error, stdout) => {
      try {
        if ((error as NodeJS.ErrnoException | null)?.code === 'ENOENT')
          throw new Error(
            'chromium is not installed: this test needs it (Debian: apt-get install chromium; .ci/run installs it)',
          );
        if (error) throw error as Error;
        resolve({ dom: stdout, pageRequests: requestsFrom(netLog, origin) });
      } catch (failure) {
        reject(failure instanceof Error ? failure : new Error(String(failure)));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}

/** URLs requested by the page (initiator: its origin), not by the browser's own services. */
function requestsFrom(netLog: string, origin: string): string[] {
  const log = JSON.parse(readFileSync(netLog, 'utf8')) as {
    constants: { logEventTypes: Record<string, number> };
    events: Array<{ type: number; params?: { url?: string; initiator?: string } }>;
  };
  const start = log.constants.logEventTypes.URL_REQUEST_START_JOB;
  return log.events.filter((e) => e.type === start && e.params?.initiator === origin).map((e) => e.params!.url!);
}

/** What the page showed once Scalar had laid it out, measured in the page, and what the browser logged about it. */
interface Layout {
  /** The error table is inside Scalar's content column. */
  errorsInColumn: boolean;
  /**
   * One-line summaries (a response's description) holding an underscore, and those whose underscore's box is clipped.
   */
  summariesWithUnderscore: number;
  clippedUnderscores: string[];
  /** Browser log entries about the Content-Security-Policy (a refused script, style or request). */
  cspViolations: string[];
}

/** In the page: waits for Scalar's layout and the error table in it, then measures. */
const MEASURE = `new Promise((resolve) => {
  const started = Date.now();
  const measure = () => {
    const column = document.querySelector('#app .references-rendered');
    const errors = document.getElementById('errors');
    const summaries = [...document.querySelectorAll('.markdown-summary')].filter((el) => el.textContent.includes('_'));
    if ((column === null || !column.contains(errors) || summaries.length === 0) && Date.now() - started < 20000) return setTimeout(measure, 100);
    const clipped = summaries.filter((el) => {
      const text = [...el.querySelectorAll('*'), el].flatMap((n) => [...n.childNodes]).find((n) => n.nodeType === 3 && n.data.includes('_'));
      const range = document.createRange();
      range.setStart(text, text.data.indexOf('_'));
      range.setEnd(text, text.data.indexOf('_') + 1);
      return range.getBoundingClientRect().bottom > el.getBoundingClientRect().bottom + 0.5;
    });
    resolve({ errorsInColumn: column !== null && column.contains(errors), summariesWithUnderscore: summaries.length, clippedUnderscores: clipped.map((el) => el.textContent.trim().slice(0, 60)) });
  };
  measure();
})`;

/**
 * Loads `url` in headless Chromium driven over the DevTools protocol (on a pipe: fd 3 to the
 * browser, fd 4 back), collects what its log says about the Content-Security-Policy, and runs MEASURE.
 */
function measureLayout(url: string): Promise<Layout> {
  const dir = mkdtempSync(join(tmpdir(), 'docs-layout-'));
  const browser = spawn(
    'chromium',
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      `--user-data-dir=${dir}`,
      '--remote-debugging-pipe',
      '--window-size=1400,1000',
    ],
    {
      stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'],
    },
  );
  const toBrowser = browser.stdio[3] as NodeJS.WritableStream;
  const fromBrowser = browser.stdio[4] as NodeJS.ReadableStream;
  // A write after the browser has gone fails the request it carried, not the test run.
  toBrowser.on('error', () => {});
  const pending = new Map<number, (result: any) => void>();
  const cspViolations: string[] = [];
  let nextId = 1;
  let buffered = '';
  fromBrowser.on('data', (chunk: Buffer) => {
    const messages = (buffered + chunk.toString('utf8')).split('\0');
    buffered = messages.pop()!;
    for (const text of messages) {
      const message = JSON.parse(text) as {
        id?: number;
        result?: unknown;
        error?: { message: string };
        method?: string;
        params?: any;
      };
      if (message.method === 'Log.entryAdded' && /Content.Security.Policy/i.test(message.params.entry.text))
        cspViolations.push(message.params.entry.text);
      if (message.id !== undefined)
        pending.get(message.id)?.(message.error ? { error: message.error.message } : message.result);
    }
  });
  const send = (method: string, params: object = {}, sessionId?: string): Promise<any> =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, (result) => (result?.error ? reject(new Error(`${method}: ${result.error}`)) : resolve(result)));
      toBrowser.write(`${JSON.stringify({ id, method, params, ...(sessionId && { sessionId }) })}\0`);
    });
  const run = async (): Promise<Layout> => {
    const { targetId } = await send('Target.createTarget', { url: 'about:blank' });
    const { sessionId } = await send('Target.attachToTarget', { targetId, flatten: true });
    await send('Log.enable', {}, sessionId);
    await send('Page.enable', {}, sessionId);
    await send('Page.navigate', { url }, sessionId);
    const measured = await send(
      'Runtime.evaluate',
      { expression: MEASURE, awaitPromise: true, returnByValue: true },
      sessionId,
    );
    return { ...(measured.result.value as Omit<Layout, 'cspViolations'>), cspViolations };
  };
  return new Promise((resolve, reject) => {
    browser.on('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'ENOENT'
          ? new Error(
              'chromium is not installed: this test needs it (Debian: apt-get install chromium; .ci/run installs it)',
            )
          : error,
      ),
    );
    const exited = new Promise((done) => {
      browser.once('exit', done);
      browser.once('error', done);
    });
    run()
      .finally(async () => {
        // Closed over the protocol, so its helper processes are gone too; killed if that does not answer.
        await Promise.race([
          send('Browser.close').catch(() => undefined),
          new Promise((done) => setTimeout(done, 5_000)),
        ]);
        browser.kill();
        await exited;
        // A helper that outlives the browser may still write to the profile: retry, and never fail the test for a
        // temporary directory.
        try {
          rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
        } catch {
          // left in the system's temporary directory
        }
      })
      .then(resolve, reject);
  });
}

describe('GET /v1/docs in a real browser', () => {
  let server: RunningServer;
  let served: string;
  let visiting: Promise<Visit> | undefined;
  /** One browser visit shared by the tests; each fails, not skips, when it cannot be made. */
  const page = () => (visiting ??= visit(`${server.url}/v1/docs`, server.url));
  let layout: Promise<Layout> | undefined;
  const measuring = () => (layout ??= measureLayout(`${server.url}/v1/docs`));

  beforeAll(async () => {
    server = await startServer(testConfig(), { logger: capturingLogger().logger, print: async () => undefined });
    served = await (await fetch(`${server.url}/v1/docs`)).text();
  });
  afterAll(() => server?.close());

  it(
    "renders every verify operation with Scalar's UI (text the served HTML does not have)",
    { timeout: 90_000 },
    async () => {
      const { dom } = await page();
      for (const endpoint of ENDPOINTS) {
        expect(served).not.toContain(endpoint.summary);
        expect(dom).toContain(endpoint.summary);
        expect(dom).toContain(endpoint.path);
      }
      expect(dom).toContain('data-v-app');
    },
  );

  it('keeps an element #error-<code> for each error code, which docs_url links to', { timeout: 90_000 }, async () => {
    const { dom } = await page();
    for (const { code } of ERROR_CODES) expect(dom).toContain(`id="error-${code.toLowerCase()}"`);
  });

  it(
    "lays the error table out in Scalar's content column, and no one-line summary clips an underscore",
    { timeout: 90_000 },
    async () => {
      const layout = await measuring();
      expect(layout.errorsInColumn).toBe(true);
      expect(layout.summariesWithUnderscore).toBeGreaterThan(0);
      expect(layout.clippedUnderscores).toEqual([]);
    },
  );

  it(
    'is served with a Content-Security-Policy that keeps it to this server, and renders under it with no violation',
    { timeout: 90_000 },
    async () => {
      const res = await fetch(`${server.url}/v1/docs`);
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-eval');
      expect(csp).toContain("frame-ancestors 'none'");
      expect(served).not.toMatch(/<script>/);
      const { cspViolations } = await measuring();
      expect(cspViolations).toEqual([]);
      const { dom } = await page();
      expect(dom).toContain('data-v-app');
    },
  );

  it(
    'requests nothing from another origin: its script and document come from this server',
    { timeout: 90_000 },
    async () => {
      const { pageRequests } = await page();
      expect(pageRequests.filter((url) => !url.startsWith(`${server.url}/`))).toEqual([]);
      expect(pageRequests).toEqual(
        expect.arrayContaining([expect.stringMatching(/\/v1\/docs\/scalar\.js\?v=/), `${server.url}/v1/openapi.json`]),
      );
    },
  );
});
