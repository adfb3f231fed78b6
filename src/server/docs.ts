import type { JsonSchema } from '../input/schema.js';
import { ERROR_CODES } from './openapi.js';

/**
 * The API reference page, rendered once from the OpenAPI document: self-contained
 * HTML with no script and nothing fetched, so it works on an offline host. Error
 * codes have anchors (`#error-bad_request`) that error envelopes' `docs_url` names.
 */

const escape = (text: string) => text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

function typeOf(schema: JsonSchema): string {
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as JsonSchema[]).map(typeOf).join(' or ');
  if (Array.isArray(schema.oneOf)) return (schema.oneOf as JsonSchema[]).map(typeOf).join(' or ');
  if (schema.type === 'array') return `${typeOf((schema.items ?? {}) as JsonSchema)}[]`;
  if (typeof schema.pattern === 'string') return `${String(schema.type)} /${schema.pattern}/`;
  if (schema.type === 'integer' && schema.maximum !== undefined) return `integer ${schema.minimum ?? ''}..${schema.maximum}`;
  return schema.type === undefined ? 'any' : String(schema.type);
}

/** Rows for every member of an object schema, nested members as `a[].b`. */
function memberRows(schema: JsonSchema, prefix: string): string[] {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  return Object.entries(properties).flatMap(([name, raw]) => {
    const member = Array.isArray(raw.anyOf) ? ((raw.anyOf as JsonSchema[])[0] ?? raw) : raw;
    const path = `${prefix}${name}`;
    const row = `<tr><td><code>${escape(path)}</code></td><td>${escape(typeOf(raw))}</td><td>${required.has(name) ? 'yes' : ''}</td><td>${escape(String(member.description ?? raw.description ?? ''))}</td></tr>`;
    const items = member.type === 'array' ? (member.items as JsonSchema) : undefined;
    const nested = items?.type === 'object' ? memberRows(items, `${path}[].`) : member.type === 'object' ? memberRows(member, `${path}.`) : [];
    return [row, ...nested];
  });
}

export function docsPage(openapi: JsonSchema): string {
  const info = openapi.info as { title: string; description: string };
  const server = ((openapi.servers as Array<{ url: string }>)[0] ?? { url: '' }).url;
  const sections = Object.entries(openapi.paths as Record<string, Record<string, JsonSchema>>).map(([path, methods]) =>
    Object.entries(methods)
      .map(([method, op]) => {
        const body = (((op.requestBody as JsonSchema | undefined)?.content as Record<string, { schema: JsonSchema }> | undefined)?.['application/json']?.schema);
        const security = op.security as unknown[];
        return `<section id="${escape(String(op.operationId))}">
<h2><code>${method.toUpperCase()} /v1${escape(path)}</code></h2>
<p>${escape(String(op.summary ?? ''))} ${escape(String(op.description ?? ''))}</p>
<p>${security.length === 0 ? 'No key needed.' : 'Needs <code>Authorization: Bearer &lt;API_KEY&gt;</code>.'}</p>
${body === undefined ? '' : `<table><tr><th>member</th><th>type</th><th>required</th><th>meaning</th></tr>${memberRows(body, '').join('\n')}</table>`}
</section>`;
      })
      .join('\n'),
  );
  const errors = ERROR_CODES.map((e) => `<tr id="error-${e.code.toLowerCase()}"><td>${e.status}</td><td><code>${e.code}</code></td><td>${escape(e.when)}</td></tr>`).join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escape(info.title)}: API reference</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:70rem;margin:2rem auto;padding:0 1rem;color:#222}code{background:#f3f3f3;padding:0 .2em}table{border-collapse:collapse;width:100%;margin:1rem 0}td,th{border:1px solid #ddd;padding:.3rem .5rem;text-align:left;vertical-align:top}th{background:#fafafa}tr:target{background:#fff6d5}</style>
</head><body>
<h1>${escape(info.title)}</h1>
<p>${escape(info.description)} Base URL: <code>${escape(server)}</code>. Machine-readable: <a href="openapi.json">openapi.json</a> (OpenAPI 3.1).</p>
${sections.join('\n')}
<section id="errors"><h2>Errors</h2>
<p>Every error is <code>{"error": {code, http_status, message, hint, severity, retryable, details, docs_url}}</code>.</p>
<table><tr><th>status</th><th>code</th><th>when</th></tr>
${errors}
</table></section>
</body></html>`;
}
