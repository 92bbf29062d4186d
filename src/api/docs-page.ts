/** A readable API reference page generated from the OpenAPI document (no external assets). */
import { ERROR_CATALOG } from './errors.js';

const esc = (s: unknown): string =>
  String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

const code = (s: string): string => esc(s).replace(/`([^`]+)`/g, '<code>$1</code>');

type Json = Record<string, unknown>;

function schemaSummary(schema: unknown): string {
  return `<pre>${esc(JSON.stringify(schema, null, 2))}</pre>`;
}

export function renderDocsPage(doc: Json): string {
  const info = (doc.info ?? {}) as Json;
  const paths = (doc.paths ?? {}) as Record<string, Record<string, Json>>;
  const sections: string[] = [];
  for (const [path, ops] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const params = ((op.parameters ?? []) as Json[])
        .map((p) => `<li><code>${esc(p.name)}</code> (${esc(p.in)}${p.required ? ', required' : ''}) ${code(String((p.schema as Json | undefined)?.description ?? p.description ?? ''))}</li>`)
        .join('');
      const body = (op.requestBody as Json | undefined)?.content as Record<string, Json> | undefined;
      const responses = Object.entries((op.responses ?? {}) as Record<string, Json>)
        .map(([status, r]) => `<li><strong>${esc(status)}</strong> ${code(String(r.description ?? ''))}</li>`)
        .join('');
      sections.push(`<section><h2><code>${esc(method.toUpperCase())} ${esc(path)}</code></h2>
<p><strong>${esc(op.summary)}</strong></p><p>${code(String(op.description ?? ''))}</p>
${params ? `<h3>Parameters</h3><ul>${params}</ul>` : ''}
${body ? `<h3>Body</h3>${schemaSummary(body['application/json']?.schema)}` : ''}
<h3>Responses</h3><ul>${responses}</ul></section>`);
    }
  }
  const errors = Object.entries(ERROR_CATALOG)
    .map(([c, e]) => `<tr><td><code>${esc(c)}</code></td><td>${e.status}</td><td>${esc(e.message)}</td></tr>`)
    .join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(info.title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;line-height:1.5}
pre{background:#f5f5f5;padding:.75rem;overflow:auto;font-size:.8rem}code{background:#f0f0f0;padding:0 .2rem}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.25rem .5rem;text-align:left}section{border-top:1px solid #ddd;margin-top:2rem}</style>
</head><body><h1>${esc(info.title)} (v${esc(info.version)})</h1><p>${code(String(info.description ?? ''))}</p>
<p>Authenticate with <code>X-Api-Key: ps_live.…</code> (or <code>Authorization: Bearer …</code>). The machine-readable document is at <a href="/openapi.json">/openapi.json</a>.</p>
${sections.join('\n')}
<section><h2>Error codes</h2><table><tr><th>code</th><th>status</th><th>meaning</th></tr>${errors}</table>
<p><code>idempotency_key_reused</code> is 400 on <code>POST /v1/verify</code> and 422 on <code>POST /v1/requests</code>.</p></section>
</body></html>`;
}
