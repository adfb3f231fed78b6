import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { JsonSchema } from 'evm-integrity/api';
import { ERROR_CODES } from './document.js';
import { SCALAR_BUNDLE } from '../scalar-bundle.js';

/**
 * The API reference page: Scalar's UI over `openapi.json`, its scripts served by this server
 * (`docs/scalar.js`, `docs/init.js`), so the page works on an offline host and sends nothing
 * elsewhere; its Content-Security-Policy holds it to that. Below it, rendered here, the error codes
 * with the anchors (`#error-bad_request`) that error envelopes' `docs_url` names: they exist before
 * any script runs, and once Scalar has laid out the page, `init.js` moves them into its content
 * column.
 */

/**
 * Scalar's options: nothing from its servers (fonts, telemetry, its AI agent's registry), no developer toolbar;
 * every tag open, so that each operation is laid out (the document is small) rather than only the first tag's.
 */
const SCALAR_OPTIONS = {
  url: 'openapi.json',
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  showDeveloperTools: 'never',
  documentDownloadType: 'json',
  defaultOpenAllTags: true,
};

/**
 * The page's Content-Security-Policy: scripts, styles, images, fonts and requests from this server
 * only (Scalar injects its styles, hence `'unsafe-inline'` for styles, never for scripts); no
 * plugin, no form, no frame around it, no `<base>`.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The page's own script (`docs/init.js`): starts Scalar, then, once Scalar has laid out the page,
 * moves the error table into its content column (beside the sidebar, in its fonts) and, for a
 * `docs_url` anchor, scrolls to the code's row.
 */
export const DOCS_SCRIPT = `Scalar.createApiReference('#app', ${JSON.stringify(SCALAR_OPTIONS)});
(function placeErrors() {
  var errors = document.getElementById('errors');
  var app = document.getElementById('app');
  var observer = new MutationObserver(function () {
    var column = app.querySelector('.references-rendered');
    if (column === null || errors === null) return;
    observer.disconnect();
    column.appendChild(errors);
    var target = location.hash.indexOf('#error-') === 0 ? document.getElementById(location.hash.slice(1)) : null;
    if (target !== null) target.scrollIntoView();
  });
  observer.observe(app, { childList: true, subtree: true });
})();
`;

/** Changes with the script's text, so it can be cached for good under `?v=`. */
const SCRIPT_VERSION = createHash('sha256').update(DOCS_SCRIPT).digest('hex').slice(0, 16);

/**
 * The page's styles. Scalar's one-line summaries (a response's description) clip at line height 1,
 * which hid the underscore of every `chain_id`: they get room below the baseline. The error table
 * takes Scalar's fonts and colours, and its content column's width.
 */
const STYLES = [
  '#app .markdown-summary{padding-bottom:.25em}',
  '#errors,#no-ui{font:15px/1.5 var(--scalar-font,system-ui,sans-serif);color:var(--scalar-color-1,inherit);max-width:var(--refs-content-max-width,70rem);margin:0 auto;padding:2rem 60px 4rem;box-sizing:border-box}',
  '#app #errors{border-top:var(--scalar-border-width,1px) solid var(--scalar-border-color,rgba(127,127,127,.3))}',
  '#errors h2{font-size:1.5rem;font-weight:600;margin:0 0 .75rem}#errors p{margin:0 0 1rem}#errors th{font-weight:600}',
  '#errors code,#no-ui code{font-family:var(--scalar-font-code,monospace);background:rgba(127,127,127,.15);padding:0 .2em}',
  '#errors table{border-collapse:collapse;width:100%}',
  '#errors td,#errors th{border:1px solid var(--scalar-border-color,rgba(127,127,127,.3));padding:.3rem .5rem;text-align:left;vertical-align:top}',
  '#errors tr:target{background:rgba(255,200,0,.25)}',
].join('');

const escape = (text: string) => text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/**
 * Changes whenever the bundle is rebuilt, so it can be cached for good under `?v=`; undefined when it was not built.
 */
function bundleVersion(file: string): string | undefined {
  const stat = statSync(file, { throwIfNoEntry: false });
  return stat === undefined ? undefined : `${stat.size}-${Math.trunc(stat.mtimeMs)}`;
}

/** The bundle's bytes, or undefined when it was not built. */
export async function readBundle(file = SCALAR_BUNDLE): Promise<Buffer | undefined> {
  return readFile(file).catch(() => undefined);
}

function errorsSection(): string {
  const rows = ERROR_CODES.map(
    (e) =>
      `<tr id="error-${e.code.toLowerCase()}"><td>${e.status}</td><td><code>${e.code}</code></td><td>${escape(e.when)}</td></tr>`,
  );
  return `<section id="errors"><h2>Errors</h2>
<p>Every error is <code>{"error": {code, http_status, message, hint, severity, retryable, details, docs_url}}</code>; <code>docs_url</code> links to its row here.</p>
<table><tr><th>status</th><th>code</th><th>when</th></tr>
${rows.join('\n')}
</table></section>`;
}

/** Without the bundle (the server was compiled but not built), a plain page that says how to get the UI. */
function withoutBundle(): string {
  return `<section id="no-ui"><p>The interactive reference is not built on this server: run <code>npm run build</code> in its package (it copies Scalar's bundle to <code>dist/assets/</code>) and restart it. Meanwhile the API is described by <a href="openapi.json">openapi.json</a> (OpenAPI 3.1).</p></section>`;
}

/** The page with Scalar's UI, or a plain page when its bundle was not built. */
export function docsPage(openapi: JsonSchema, bundle = SCALAR_BUNDLE): string {
  const title = escape((openapi.info as { title: string }).title);
  const version = bundleVersion(bundle);
  const ui =
    version === undefined
      ? withoutBundle()
      : '<div id="app"></div><noscript><p id="no-ui">The reference needs JavaScript; the API is described by <a href="openapi.json">openapi.json</a>.</p></noscript>';
  const scripts =
    version === undefined
      ? ''
      : `<script src="docs/scalar.js?v=${encodeURIComponent(version)}"></script>\n<script src="docs/init.js?v=${SCRIPT_VERSION}"></script>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}: API reference</title>
<style>${STYLES}</style>
</head><body>
${ui}
${errorsSection()}
${scripts}
</body></html>`;
}
