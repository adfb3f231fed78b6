import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS } from '../packages/service/src/endpoints/endpoints.js';
import { ERROR_CODES } from '../packages/service/src/server/openapi.js';
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
    '--virtual-time-budget=10000',
    `--log-net-log=${netLog}`,
    '--dump-dom',
    url,
  ];
  return new Promise((resolve, reject) => {
    execFile('chromium', args, { timeout: 60_000, maxBuffer: 64 * 1024 * 1024 }, (error, stdout) => {
      try {
        if ((error as NodeJS.ErrnoException | null)?.code === 'ENOENT')
          throw new Error('chromium is not installed: this test needs it (Debian: apt-get install chromium; .ci/run installs it)');
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

describe('GET /v1/docs in a real browser', () => {
  let server: RunningServer;
  let served: string;
  let visiting: Promise<Visit> | undefined;
  /** One browser visit shared by the tests; each fails, not skips, when it cannot be made. */
  const page = () => (visiting ??= visit(`${server.url}/v1/docs`, server.url));

  beforeAll(async () => {
    server = await startServer(testConfig(), { logger: capturingLogger().logger, print: () => {} });
    served = await (await fetch(`${server.url}/v1/docs`)).text();
  });
  afterAll(() => server?.close());

  it("renders every verify operation with Scalar's UI (text the served HTML does not have)", { timeout: 90_000 }, async () => {
    const { dom } = await page();
    for (const endpoint of ENDPOINTS) {
      expect(served).not.toContain(endpoint.summary);
      expect(dom).toContain(endpoint.summary);
      expect(dom).toContain(endpoint.path);
    }
    expect(dom).toContain('data-v-app');
  });

  it('keeps an element #error-<code> for each error code, which docs_url links to', { timeout: 90_000 }, async () => {
    const { dom } = await page();
    for (const { code } of ERROR_CODES) expect(dom).toContain(`id="error-${code.toLowerCase()}"`);
  });

  it('requests nothing from another origin: its script and document come from this server', { timeout: 90_000 }, async () => {
    const { pageRequests } = await page();
    expect(pageRequests.filter((url) => !url.startsWith(`${server.url}/`))).toEqual([]);
    expect(pageRequests).toEqual(expect.arrayContaining([expect.stringMatching(/\/v1\/docs\/scalar\.js\?v=/), `${server.url}/v1/openapi.json`]));
  });
});
