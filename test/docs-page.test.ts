import { describe, expect, it } from 'vitest';
import { createApp } from '../packages/service/src/server/app.js';
import { docsPage, readBundle } from '../packages/service/src/server/openapi/docs-page.js';
import { SCALAR_BUNDLE } from '../packages/service/src/server/scalar-bundle.js';
import { ERROR_CODES } from '../packages/service/src/server/openapi/document.js';
import { MemoryStore } from '../packages/service/src/store/memory-store.js';
import { capturingLogger, testConfig } from './helpers/server.js';

const app = () => createApp({ config: testConfig(), store: new MemoryStore(), logger: capturingLogger().logger });

describe('the reference page and its script', () => {
  it("serves Scalar's bundle, built into dist/assets, with and without /v1, cached for good, no key needed", async () => {
    const built = await readBundle();
    expect(built, `${SCALAR_BUNDLE} is missing: npm run build copies it`).toBeDefined();
    for (const path of ['/v1/docs/scalar.js', '/docs/scalar.js']) {
      const res = await app().request(path);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(Buffer.from(await res.arrayBuffer()).equals(built!)).toBe(true);
    }
  });

  it('names the script relative to the page, with a version, and nothing on another origin', async () => {
    const html = await (await app().request('/v1/docs')).text();
    expect(html).toMatch(/<script src="docs\/scalar\.js\?v=[\w-]+"><\/script>/);
    expect(html).toMatch(/<script src="docs\/init\.js\?v=[0-9a-f]{16}"><\/script>/);
    expect(html).not.toContain('<script>');
    const init = await app().request('/v1/docs/init.js');
    expect(init.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await init.text()).toContain("Scalar.createApiReference('#app'");
    expect(html).toContain('<div id="app"></div>');
    expect(html.match(/\b(https?:)?\/\/[\w.-]+/g)).toBeNull();
  });

  it('without the bundle, a plain page that says how to build it, still with the error anchors and no script', async () => {
    const openapi = (await (await app().request('/v1/openapi.json')).json()) as Record<string, unknown>;
    const html = docsPage(openapi, '/nonexistent/scalar-standalone.js');
    expect(html).toContain('npm run build');
    expect(html).toContain('<a href="openapi.json">');
    expect(html).not.toContain('<script');
    for (const { code } of ERROR_CODES) expect(html).toContain(`id="error-${code.toLowerCase()}"`);
    expect(await readBundle('/nonexistent/scalar-standalone.js')).toBeUndefined();
  });
});
