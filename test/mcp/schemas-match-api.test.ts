/**
 * The MCP server's zod schemas (src/mcp/schemas.ts) checked against the interface's TypeBox
 * schemas (src/api/schemas.ts), the one definition of the wire: values are generated from each
 * side's JSON Schema and validated by the other side, and near misses of valid values (one field
 * wrong, missing or added) must be refused by both or by neither.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Value } from '@sinclair/typebox/value';
import { Type } from '@sinclair/typebox';
import type { TSchema } from '@sinclair/typebox';
import type { ZodTypeAny } from 'zod';
import { zodToJsonSchema } from 'zod-to-json-schema';
import * as Wire from '../../src/api/schemas.js';
import * as Mcp from '../../src/mcp/schemas.js';
import { arbitraryOf, nearMisses } from './json-schema-arbitrary.js';

const RUNS = 300;

/** The JSON Schema of a zod schema, inlined (no $ref), as the MCP SDK advertises it. */
const jsonOfZod = (schema: ZodTypeAny): unknown => {
  const { $schema: _ignored, ...rest } = zodToJsonSchema(schema, { target: 'jsonSchema7', $refStrategy: 'none' }) as Record<string, unknown>;
  return rest;
};

const show = (v: unknown) => JSON.stringify(v).slice(0, 600);

function apiAccepts(schema: TSchema, value: unknown): boolean {
  return Value.Check(schema, value);
}

/** Every value the API schema allows is accepted by the MCP schema. */
function assertApiWithinMcp(api: TSchema, mcp: ZodTypeAny, name: string): void {
  fc.assert(
    fc.property(arbitraryOf(api), (value) => {
      const parsed = mcp.safeParse(value);
      assert.ok(parsed.success, `${name}: the API allows ${show(value)} but the MCP schema refuses it: ${parsed.success ? '' : parsed.error.message}`);
    }),
    { numRuns: RUNS },
  );
}

/** Every value the MCP schema allows is accepted by the API schema. */
function assertMcpWithinApi(mcp: ZodTypeAny, api: TSchema, name: string): void {
  fc.assert(
    fc.property(arbitraryOf(jsonOfZod(mcp)), (value) => {
      assert.ok(apiAccepts(api, value), `${name}: the MCP schema allows ${show(value)} but the API refuses it: ${[...Value.Errors(api, value)].map((e) => `${e.path} ${e.message}`).slice(0, 3).join('; ')}`);
    }),
    { numRuns: RUNS },
  );
}

describe('the MCP envelope is the API’s ClientDecisionEnvelopeV1', () => {
  test('every envelope the API schema allows, the MCP schema allows', () => assertApiWithinMcp(Wire.Envelope, Mcp.envelopeSchema, 'envelope'));

  test('every envelope the MCP schema allows, the API schema allows', () => assertMcpWithinApi(Mcp.envelopeSchema, Wire.Envelope, 'envelope'));

  test('both refuse the same near misses: a field wrong, missing or added', () => {
    fc.assert(
      fc.property(
        arbitraryOf(Wire.Envelope).chain((valid) => nearMisses(valid)),
        (miss) => {
          const api = apiAccepts(Wire.Envelope, miss.value);
          const mcp = Mcp.envelopeSchema.safeParse(miss.value).success;
          assert.equal(mcp, api, `${miss.kind} ${miss.path}: API ${api ? 'accepts' : 'refuses'}, MCP ${mcp ? 'accepts' : 'refuses'} ${show(miss.value)}`);
        },
      ),
      { numRuns: RUNS * 3 },
    );
  });

  test('the check can fail: an envelope schema that forgot a verdict is caught', () => {
    const narrowed = Mcp.envelopeSchema.extend({ verdict: Mcp.envelopeSchema.shape.verdict.refine((v) => v !== 'CATCH_ALL') });
    assert.throws(
      () => assertApiWithinMcp(Wire.Envelope, narrowed, 'narrowed envelope'),
      (err: Error) => /the API allows .*CATCH_ALL/.test(String((err.cause as Error | undefined)?.message)),
    );
  });
});

describe('each tool field accepts whatever the API may send it', () => {
  const fields: Array<[string, TSchema, ZodTypeAny]> = [
    ['verify_email status ← VerifyResult.status', Wire.VerifyResult.properties.status, Mcp.verifyEmailOutput.status],
    ['verify_email engine ← VerifyResult.engine', Wire.EngineMetadata, Mcp.verifyEmailOutput.engine],
    ['verify_batch counters ← BatchRequest.counters', Wire.Counters, Mcp.verifyBatchOutput.counters],
    ['get_job mode ← RequestDescriptor.mode', Wire.RequestDescriptor.properties.mode, Mcp.getJobOutput.mode],
    ['get_job state ← RequestDescriptor.state', Wire.RequestDescriptor.properties.state, Mcp.getJobOutput.state],
    ['get_job finalization ← RequestDescriptor.finalization', Type.Union([Wire.Finalization, Type.Null()]), Mcp.getJobOutput.finalization],
    ['get_job counters ← BatchRequest.counters', Wire.Counters, Mcp.getJobOutput.counters],
    ['get_results item state ← ResultItem.state', Wire.ResultItem.properties.state, Mcp.resultItemSchema.shape.state],
    ['get_results item presend ← ResultItem.presend', Wire.Envelope, Mcp.resultItemSchema.shape.presend],
    ['get_results next_cursor ← ResultsPage.nextCursor', Wire.ResultsPage.properties.nextCursor, Mcp.getResultsOutput.next_cursor],
  ];
  for (const [name, api, mcp] of fields) test(name, () => assertApiWithinMcp(api, mcp, name));

  test('verify_email status allows nothing the API would not send', () => assertMcpWithinApi(Mcp.verifyEmailOutput.status, Wire.VerifyResult.properties.status, 'status'));
});
