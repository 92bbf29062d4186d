/**
 * A readable API reference page generated from the OpenAPI document (no external assets):
 * each operation with its parameters, body, every response status with its description,
 * schema and examples, then every named schema as a table of fields, then the error codes.
 */
import { ERROR_CATALOG, HTTP_STATUS, ROUTE_ERRORS, ROUTE_NAMES } from './errors.js';
import type { ErrorCode } from './errors.js';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

const esc = (s: unknown): string =>
  String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

/** The little Markdown the descriptions use: `code` and "- " list lines. */
function prose(text: unknown): string {
  const inline = (s: string) => esc(s).replace(/`([^`]+)`/g, '<code>$1</code>');
  const lines = String(text ?? '').split('\n');
  const items = lines.filter((l) => l.startsWith('- '));
  const rest = lines.filter((l) => !l.startsWith('- ') && l.trim() !== '');
  return `${items.length ? `<ul>${items.map((l) => `<li>${inline(l.slice(2))}</li>`).join('')}</ul>` : ''}${rest.map((l) => `<p>${inline(l)}</p>`).join('')}`;
}

const componentName = (schema: unknown): string | null =>
  isObject(schema) && typeof schema.$ref === 'string' ? (schema.$ref.split('/').pop() ?? null) : null;

/** A schema in a few words, with links to named schemas. */
function typeOf(schema: unknown): string {
  if (!isObject(schema)) return '';
  const name = componentName(schema);
  if (name) return `<a href="#schema-${esc(name)}">${esc(name)}</a>`;
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as unknown[]).map(typeOf).join(' or ');
  if (Array.isArray(schema.enum)) return `${esc(schema.type ?? '')} (one of ${(schema.enum as unknown[]).map((v) => `<code>${esc(JSON.stringify(v))}</code>`).join(', ')})`;
  if (schema.type === 'array') return `array of ${typeOf(schema.items)}`;
  const limits = [
    schema.format ? `${esc(schema.format)}` : '',
    schema.minimum !== undefined || schema.maximum !== undefined ? `${esc(schema.minimum ?? '…')}–${esc(schema.maximum ?? '…')}` : '',
    schema.maxLength !== undefined ? `max length ${esc(schema.maxLength)}` : '',
    schema.minItems !== undefined ? `${esc(schema.minItems)}–${esc(schema.maxItems ?? '…')} items` : '',
  ].filter(Boolean);
  return `${esc(schema.type ?? 'any')}${limits.length ? ` (${limits.join(', ')})` : ''}`;
}

/** A field's description, also when it sits on the non-null branch of a nullable field. */
function descriptionOf(schema: Json): string {
  const branches = (schema.anyOf ?? []) as Json[];
  return String(schema.description ?? branches.find((b) => b.description)?.description ?? '');
}

function fieldTable(schema: Json): string {
  const props = (schema.properties ?? {}) as Record<string, Json>;
  const required = new Set((schema.required ?? []) as string[]);
  const rows = Object.entries(props)
    .map(([name, p]) => `<tr><td><code>${esc(name)}</code></td><td>${typeOf(p)}</td><td>${required.has(name) ? 'yes' : 'no'}</td><td>${prose(descriptionOf(p))}</td></tr>`)
    .join('');
  const extra = isObject(schema.additionalProperties) ? `<p>Other keys: ${typeOf(schema.additionalProperties)}.</p>` : '';
  return `<table><tr><th>field</th><th>type</th><th>required</th><th>notes</th></tr>${rows}</table>${extra}`;
}

function examples(media: Json | undefined): string {
  const all = (media?.examples ?? {}) as Record<string, Json>;
  return Object.values(all)
    .map((e) => `<details><summary>Example: ${esc(e.summary)}</summary><pre>${esc(JSON.stringify(e.value, null, 2))}</pre></details>`)
    .join('');
}

function operation(path: string, method: string, op: Json): string {
  const params = ((op.parameters ?? []) as Json[])
    .map((p) => `<li><code>${esc(p.name)}</code> (${esc(p.in)}${p.required ? ', required' : ''}): ${typeOf(p.schema)}. ${prose(p.description ?? (p.schema as Json | undefined)?.description ?? '')}</li>`)
    .join('');
  const body = ((op.requestBody as Json | undefined)?.content as Record<string, Json> | undefined)?.['application/json'];
  const responses = Object.entries((op.responses ?? {}) as Record<string, Json>)
    .map(([status, r]) => {
      const media = (r.content as Record<string, Json> | undefined)?.['application/json'];
      const headers = Object.keys((r.headers ?? {}) as Json).map((h) => `<code>${esc(h)}</code>`).join(', ');
      return `<li><strong>${esc(status)}</strong> ${typeOf(media?.schema)}${headers ? ` — headers ${headers}` : ''}${prose(r.description)}${examples(media)}</li>`;
    })
    .join('');
  return `<section id="${esc(op.operationId)}"><h2><code>${esc(method.toUpperCase())} ${esc(path)}</code> <small>${esc(op.operationId)}</small></h2>
<p><strong>${esc(op.summary)}</strong></p>${prose(op.description)}
${params ? `<h3>Parameters</h3><ul>${params}</ul>` : ''}
${body ? `<h3>Body</h3><p>${typeOf(body.schema)}</p>${examples(body)}` : ''}
<h3>Responses</h3><ul>${responses}</ul></section>`;
}

export function renderDocsPage(doc: Json): string {
  const info = (doc.info ?? {}) as Json;
  const paths = (doc.paths ?? {}) as Record<string, Record<string, Json>>;
  const ops = Object.entries(paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => operation(path, method, op)));
  const schemas = Object.entries(((doc.components as Json | undefined)?.schemas ?? {}) as Record<string, Json>)
    .map(([name, s]) => `<section id="schema-${esc(name)}"><h3>${esc(name)}</h3>${prose(s.description ?? '')}${fieldTable(s)}</section>`)
    .join('\n');
  const errors = (Object.keys(ERROR_CATALOG) as ErrorCode[])
    .map((c) => `<tr><td><code>${esc(c)}</code></td><td>${HTTP_STATUS[c]}</td><td>${esc(ERROR_CATALOG[c].message)}</td><td>${prose(ERROR_CATALOG[c].when)}</td></tr>`)
    .join('');
  // The per-route statuses that differ from a code's usual one (docs/design.md §4), from the same table the routes use.
  const exceptions = ROUTE_NAMES.flatMap((route) =>
    Object.entries(ROUTE_ERRORS[route].overrides ?? {}).map(
      ([c, status]) => `<p><code>${esc(c)}</code> is ${status} on <code>${esc(route)}</code> (${HTTP_STATUS[c as ErrorCode]} elsewhere).</p>`,
    ),
  );
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(info.title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:64rem;margin:2rem auto;padding:0 1rem;line-height:1.5}
pre{background:#f5f5f5;padding:.75rem;overflow:auto;font-size:.8rem}code{background:#f0f0f0;padding:0 .2rem}
table{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid #ccc;padding:.25rem .5rem;text-align:left;vertical-align:top}td p{margin:0}
section{border-top:1px solid #ddd;margin-top:2rem}h2 small{color:#666;font-weight:normal}</style>
</head><body><h1>${esc(info.title)} (v${esc(info.version)})</h1>${prose(info.description)}
<p>Authenticate with <code>X-Api-Key: ps_live.…</code> (or <code>Authorization: Bearer …</code>). The machine-readable document is at <a href="/openapi.json">/openapi.json</a>.</p>
${ops.join('\n')}
<section><h2>Schemas</h2>${schemas}</section>
<section id="errors"><h2>Error codes</h2><table><tr><th>code</th><th>status</th><th>message</th><th>when</th></tr>${errors}</table>
${exceptions.join('')}</section>
</body></html>`;
}
