/**
 * The served OpenAPI document and /docs: named component schemas, operationIds, servers,
 * license, every response status of docs/interface-spec.md §7 with its description and schema,
 * enums as enums, examples that match their schemas, and `redocly lint` with the recommended
 * rules clean on the document as served.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { TSchema } from '@sinclair/typebox';
import { startHarness } from './harness.js';
import type { Harness } from './harness.js';
import { assertMatches } from './schema-check.js';
import * as Wire from '../../src/api/schemas.js';
import { ERROR_CATALOG, ROUTE_ERRORS, ROUTE_NAMES } from '../../src/api/errors.js';
import type { RouteName } from '../../src/api/errors.js';
import { codesFor } from '../../src/api/responses.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const run = promisify(execFile);

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The components the document must name, and the schema of src/api/schemas.ts each stands for. */
const COMPONENTS: Record<string, TSchema> = {
  ClientDecisionEnvelopeV1: Wire.Envelope,
  VerifyInput: Wire.VerifyInput,
  VerifyResult: Wire.VerifyResult,
  EngineMetadata: Wire.EngineMetadata,
  LegacyDecision: Wire.LegacyDecision,
  RetryWindow: Wire.RetryWindow,
  Billing: Wire.Billing,
  AddressHistory: Wire.History,
  BatchInput: Wire.BatchInput,
  BatchRequest: Wire.BatchRequest,
  RequestDescriptor: Wire.RequestDescriptor,
  Counters: Wire.Counters,
  Finalization: Wire.Finalization,
  ResultItem: Wire.ResultItem,
  ResultsPage: Wire.ResultsPage,
  Error: Wire.ErrorBody,
};

const SUCCESS: Record<RouteName, string[]> = {
  'POST /v1/verify': ['200', '202'],
  'POST /v1/requests': ['200', '202'],
  'GET /v1/requests/{id}': ['200'],
  'GET /v1/requests/{id}/results': ['200'],
};

function operations(doc: Json): Array<{ route: RouteName; op: Json }> {
  return Object.entries(doc.paths as Record<string, Json>).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ route: `${method.toUpperCase()} ${path}` as RouteName, op: op as Json })),
  );
}

const componentOf = (schema: Json | undefined): string => String(schema?.$ref ?? '').replace('#/components/schemas/', '');

/** Every node of the document, with its JSON pointer. */
function* walk(node: unknown, pointer = ''): Generator<[string, Json]> {
  if (Array.isArray(node)) for (const [i, v] of node.entries()) yield* walk(v, `${pointer}/${i}`);
  else if (typeof node === 'object' && node !== null) {
    yield [pointer, node as Json];
    for (const [k, v] of Object.entries(node)) yield* walk(v, `${pointer}/${k}`);
  }
}

describe('the OpenAPI document', () => {
  let h: Harness;
  let doc: Json;
  before(async () => {
    h = await startHarness();
    const r = await h.call('GET', '/openapi.json');
    assert.equal(r.status, 200);
    doc = r.body;
  });
  after(async () => h.close());

  test('is OpenAPI 3.1 with the four routes, servers, a license, tags, both auth schemes and the whole error catalog', () => {
    assert.equal(doc.openapi, '3.1.0');
    assert.deepEqual(Object.keys(doc.paths).sort(), ['/v1/requests', '/v1/requests/{id}', '/v1/requests/{id}/results', '/v1/verify']);
    assert.ok(doc.servers.length >= 1 && doc.servers.every((s: Json) => typeof s.url === 'string'));
    assert.equal(doc.info.license.identifier, 'MIT');
    assert.deepEqual(doc.tags.map((t: Json) => t.name).sort(), ['Batches', 'Verification']);
    assert.ok(doc.components.securitySchemes.ApiKey && doc.components.securitySchemes.Bearer);
    for (const [code, e] of Object.entries(ERROR_CATALOG)) assert.equal(doc['x-error-codes'][code]?.message, e.message, code);
  });

  test('every operation has a unique operationId, a summary, a tag and both auth schemes', () => {
    const ids = operations(doc).map(({ op }) => op.operationId);
    assert.deepEqual(ids.sort(), ['createBatch', 'getBatch', 'getBatchResults', 'verifyEmail']);
    for (const { route, op } of operations(doc)) {
      assert.ok(op.summary && op.tags?.length === 1, route);
      assert.deepEqual(op.security, [{ ApiKey: [] }, { Bearer: [] }], route);
    }
  });

  test('the main outputs are named components, each the schema of src/api/schemas.ts it stands for', () => {
    for (const [name, schema] of Object.entries(COMPONENTS)) {
      const component = doc.components.schemas[name];
      assert.ok(component, `component ${name}`);
      assert.deepEqual(Object.keys(component.properties ?? {}), Object.keys((schema as Json).properties ?? {}), name);
      assert.deepEqual(component.required ?? [], (schema as Json).required ?? [], name);
    }
    assert.equal(componentOf(doc.components.schemas.VerifyResult.properties.presend), 'ClientDecisionEnvelopeV1');
    assert.equal(componentOf(doc.components.schemas.ResultItem.properties.presend), 'ClientDecisionEnvelopeV1');
  });

  test('every route documents exactly its success statuses and the spec’s error statuses, each with a description and a named schema', () => {
    for (const { route, op } of operations(doc)) {
      const expected = [...SUCCESS[route], ...ROUTE_ERRORS[route].statuses.map(String)].sort();
      assert.deepEqual(Object.keys(op.responses).sort(), expected, route);
      for (const [status, response] of Object.entries(op.responses as Record<string, Json>)) {
        assert.ok(response.description && response.description !== 'Default Response', `${route} ${status} has a description`);
        const schema = componentOf(response.content['application/json'].schema);
        if (Number(status) >= 400) {
          assert.equal(schema, 'Error', `${route} ${status}`);
          assert.deepEqual(response['x-error-codes'], codesFor(route, Number(status)), `${route} ${status}`);
          for (const code of response['x-error-codes']) assert.ok(response.description.includes(`\`${code}\``), `${route} ${status} explains ${code}`);
        } else {
          assert.equal(schema, route === 'POST /v1/verify' ? 'VerifyResult' : route.endsWith('/results') ? 'ResultsPage' : 'BatchRequest', `${route} ${status}`);
        }
        assert.ok(response.headers['X-Request-Id'], `${route} ${status} X-Request-Id`);
        if (status === '429') assert.ok(response.headers['Retry-After'], `${route} 429 Retry-After`);
      }
    }
    const verifyParams = doc.paths['/v1/verify'].post.parameters;
    assert.ok(verifyParams.some((p: Json) => p.in === 'header' && p.name === 'Idempotency-Key' && p.required));
    const resultParams = doc.paths['/v1/requests/{id}/results'].get.parameters.map((p: Json) => p.name).sort();
    assert.deepEqual(resultParams, ['cursor', 'id', 'limit', 'offset']);
  });

  test('enums are enums: no union of single constants anywhere in the document', () => {
    for (const [pointer, node] of walk(doc)) {
      const branches = (node.anyOf ?? node.oneOf) as Json[] | undefined;
      if (!branches) continue;
      const constants = branches.filter((b) => b.const !== undefined || (Array.isArray(b.enum) && b.enum.length === 1));
      assert.ok(constants.length < 2, `${pointer} is a union of constants`);
    }
    assert.deepEqual(doc.components.schemas.ClientDecisionEnvelopeV1.properties.status.enum, ['completed', 'running', 'recheck_scheduled', 'failed', 'rejected']);
    assert.deepEqual(doc.components.schemas.Error.properties.error.properties.code.enum, Object.keys(ERROR_CATALOG));
  });

  test('every route has examples, and every example matches the schema it illustrates', () => {
    let count = 0;
    for (const { route, op } of operations(doc)) {
      const media: Array<[string, Json]> = Object.entries(op.responses as Record<string, Json>).map(([status, r]) => [`${route} ${status}`, r.content['application/json']]);
      if (op.requestBody) media.push([`${route} body`, op.requestBody.content['application/json']]);
      for (const [where, m] of media) {
        const examples = Object.values((m.examples ?? {}) as Record<string, Json>);
        assert.ok(examples.length > 0, `${where} has an example`);
        const schema = COMPONENTS[componentOf(m.schema)];
        assert.ok(schema, `${where}: ${componentOf(m.schema)} is a known schema`);
        for (const e of examples) {
          assertMatches(schema, e.value);
          count += 1;
        }
      }
      for (const status of Object.keys(op.responses).filter((s) => Number(s) >= 400)) {
        const codes = Object.values(op.responses[status].content['application/json'].examples as Record<string, Json>).map((e) => e.value.error.code);
        assert.deepEqual(codes, codesFor(route, Number(status)), `${route} ${status} has one example per code`);
      }
    }
    assert.ok(count >= ROUTE_NAMES.length * 3, `${count} examples checked`);
  });

  test('redocly lint with the recommended rules finds nothing in the document as served', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'presend-openapi-'));
    try {
      writeFileSync(join(dir, 'openapi.json'), JSON.stringify(doc, null, 2));
      const cli = join(root, 'node_modules/@redocly/cli/bin/cli.js');
      // Run where no redocly.yaml can be found, with telemetry and the update check off (no network here).
      const { stdout } = await run(process.execPath, [cli, 'lint', 'openapi.json', '--extends', 'recommended', '--format', 'json'], {
        cwd: dir,
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
        timeout: 120_000,
        maxBuffer: 16 * 1024 * 1024,
      }).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
      const report = JSON.parse(stdout.slice(stdout.indexOf('{'))) as { totals: { errors: number; warnings: number }; problems: Json[] };
      const problems = report.problems.map((p) => `${p.severity} ${p.ruleId} ${p.message} at ${p.location?.[0]?.pointer}`);
      assert.deepEqual(problems, []);
      assert.deepEqual({ errors: report.totals.errors, warnings: report.totals.warnings }, { errors: 0, warnings: 0 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('/docs', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(async () => h.close());

  test('is a readable HTML reference: every response status with its meaning and schema, the envelope’s fields, the error codes', async () => {
    const res = await fetch(`${h.url}/docs`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /text\/html/);
    const html = await res.text();
    assert.doesNotMatch(html, /Default Response/);
    assert.match(html, /POST \/v1\/verify/);
    assert.match(html, /GET \/v1\/requests\/\{id\}\/results/);
    assert.match(html, /<strong>200<\/strong> <a href="#schema-VerifyResult">VerifyResult<\/a>/);
    assert.match(html, /<strong>202<\/strong> <a href="#schema-VerifyResult">VerifyResult<\/a>/);
    assert.match(html, /<strong>422<\/strong> <a href="#schema-Error">Error<\/a>/);
    assert.match(html, /id="schema-ClientDecisionEnvelopeV1"/);
    for (const field of ['contract_version', 'decision', 'verdict', 'confidence', 'billing', 'evidence_class']) assert.match(html, new RegExp(`<code>${field}</code>`));
    assert.match(html, /<code>&quot;send_with_caution&quot;<\/code>/);
    assert.match(html, /A null decision is not permission to send/, 'a nullable field’s description is shown too');
    for (const code of Object.keys(ERROR_CATALOG)) assert.match(html, new RegExp(`<code>${code}</code>`));
    assert.match(html, /<code>idempotency_key_reused<\/code> is 422 on <code>POST \/v1\/requests<\/code> \(400 elsewhere\)/);
  });
});
