import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { freePort, runCli, startLiveService, type LiveService } from '../client/live-service.js';
import { connectPresendMcp, textOf, type McpSession } from './mcp-client.js';
import { until } from '../until.js';

describe('presend mcp, driven by the official MCP client, against a real presend serve', () => {
  let service: LiveService;
  let key: string;
  let session: McpSession;

  before(async () => {
    service = await startLiveService({ env: { PRESEND_SANDBOX_RECHECK_DELAY_MS: '300' }, accounts: [{ name: 'agent', credits: 0, test: true }] });
    key = service.keyOf('agent');
    session = await connectPresendMcp({ PRESEND_BASE_URL: service.baseUrl, PRESEND_API_KEY: key });
  });
  after(async () => {
    await session?.close();
    await service?.stop();
  });

  test('the server offers exactly four tools, with schemas, descriptions and the right annotations', async () => {
    const { tools } = await session.client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name).sort(), ['get_job', 'get_results', 'verify_batch', 'verify_email']);
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    for (const name of ['get_job', 'get_results']) {
      assert.deepEqual(
        { ...byName.get(name)?.annotations, title: undefined },
        { title: undefined, readOnlyHint: true, idempotentHint: true, openWorldHint: false },
      );
    }
    for (const name of ['verify_email', 'verify_batch']) {
      const annotations = byName.get(name)?.annotations;
      assert.equal(annotations?.readOnlyHint, false);
      assert.equal(annotations?.idempotentHint, false);
      assert.equal(annotations?.openWorldHint, true);
    }
    for (const tool of tools) {
      assert.ok(tool.outputSchema, `${tool.name} has an output schema`);
      assert.equal(tool.inputSchema.type, 'object');
      assert.match(tool.description ?? '', /NOT permission to send|Free and read-only/);
    }
    assert.deepEqual(byName.get('verify_batch')?.inputSchema.required?.slice().sort(), ['emails', 'max_credits']);
    assert.match(byName.get('verify_email')?.description ?? '', /1 credit/);
    assert.match(byName.get('verify_email')?.description ?? '', /Do NOT call verify_email again as a new check/);
  });

  test('verify_email returns the envelope as structured content', async () => {
    const result = await session.call('verify_email', { email: 'undeliverable@example.com' });
    assert.notEqual(result.isError, true, textOf(result));
    const out = result.structuredContent as { pending: boolean; presend: { decision: string; verdict: string }; request_id: string };
    assert.equal(out.pending, false);
    assert.equal(out.presend.verdict, 'UNDELIVERABLE_NO_MAILBOX');
    assert.equal(out.presend.decision, 'suppress');
    assert.ok(out.request_id);
  });

  test('verify_email on a slow address is pending, with the engine job id and a way to look again that replays the same check', async () => {
    const result = await session.call('verify_email', { email: 'slow@example.com', timeout_ms: 50 });
    assert.notEqual(result.isError, true, textOf(result));
    const out = result.structuredContent as { pending: boolean; engine_job_id: string | null; idempotency_key: string; next_step: string; presend: { decision: null } };
    assert.equal(out.pending, true);
    assert.ok(out.engine_job_id);
    assert.equal(out.presend.decision, null);
    assert.match(out.next_step, /Do not resubmit/);
    assert.ok(out.next_step.includes(out.idempotency_key));

    // Following that advice looks at the same check again instead of starting a new one.
    const again = await session.call('verify_email', { email: 'slow@example.com', timeout_ms: 50, idempotency_key: out.idempotency_key });
    assert.notEqual(again.isError, true, textOf(again));
    assert.equal((again.structuredContent as { engine_job_id: string | null }).engine_job_id, out.engine_job_id);
  });

  test('verify_batch refuses, before creating anything, a batch with more unique addresses than max_credits', async () => {
    const emails = ['a@example.com', 'b@example.com', 'a@EXAMPLE.com', ' c@example.com'];
    const result = await session.call('verify_batch', { emails, max_credits: 2 });
    assert.equal(result.isError, true);
    assert.match(textOf(result), /max_credits_exceeded/);
    assert.match(textOf(result), /3 unique addresses/);
    assert.match(textOf(result), /Nothing was created/);
  });

  test('the max_credits refusal does not even reach the service', async () => {
    // A server whose base URL answers nothing: a refusal that needed the network would fail differently.
    const offline = await connectPresendMcp({ PRESEND_BASE_URL: `http://127.0.0.1:${await freePort()}`, PRESEND_API_KEY: key });
    try {
      const result = await offline.call('verify_batch', { emails: ['a@example.com', 'b@example.com'], max_credits: 1 });
      assert.equal(result.isError, true);
      assert.match(textOf(result), /max_credits_exceeded/);
    } finally {
      await offline.close();
    }
  });

  test('verify_batch, get_job and get_results take a batch from start to a complete set of results', async () => {
    const emails = ['deliverable@example.com', 'greylisted@example.com', 'unknown@example.com', 'catchall@example.com', 'deliverable@Example.com'];
    const started = await session.call('verify_batch', { emails, max_credits: 4 });
    assert.notEqual(started.isError, true, textOf(started));
    const batch = started.structuredContent as { job_id: string; unique_addresses: number; next_step: string };
    assert.equal(batch.unique_addresses, 4);
    assert.match(batch.next_step, /get_job/);

    await until('the job completes', async () => {
      const job = await session.call('get_job', { job_id: batch.job_id });
      assert.notEqual(job.isError, true, textOf(job));
      return (job.structuredContent as { state: string }).state === 'completed';
    }, 20_000, 100);

    const seen: string[] = [];
    let cursor: string | undefined;
    let complete = false;
    while (!complete) {
      const page = await session.call('get_results', { job_id: batch.job_id, limit: 3, ...(cursor ? { cursor } : {}) });
      assert.notEqual(page.isError, true, textOf(page));
      const out = page.structuredContent as { results: { email: string }[]; next_cursor: string | null; complete: boolean };
      seen.push(...out.results.map((item) => item.email));
      complete = out.complete;
      cursor = out.next_cursor ?? undefined;
      assert.ok(complete || cursor, 'an incomplete page of a completed job carries a cursor');
    }
    assert.equal(seen.length, 4);
    assert.equal(new Set(seen).size, 4);
  });

  test('a 200-item results page carries its data once, in structured content, with a short text summary', async () => {
    const emails = Array.from({ length: 200 }, (_, i) => (i % 4 === 0 ? `undeliverable+${i}@example.com` : `deliverable+${i}@example.com`));
    const started = await session.call('verify_batch', { emails, max_credits: 200 });
    assert.notEqual(started.isError, true, textOf(started));
    const jobId = (started.structuredContent as { job_id: string }).job_id;
    assert.ok(textOf(started).length < 400, textOf(started));
    await until('the job completes', async () => ((await session.call('get_job', { job_id: jobId })).structuredContent as { state: string }).state === 'completed', 30_000, 100);
    const page = await session.call('get_results', { job_id: jobId, limit: 200 });
    assert.notEqual(page.isError, true, textOf(page));
    const out = page.structuredContent as { results: { email: string; presend: { decision: string } }[]; complete: boolean };
    assert.equal(out.results.length, 200);
    assert.equal(out.complete, true);
    const text = textOf(page);
    assert.ok(text.length < 400, `the text is a summary (${text.length} characters): ${text}`);
    assert.match(text, /200 results/);
    assert.match(text, /150 send, 50 suppress|50 suppress, 150 send/);
    assert.ok(!text.includes('"presend"') && !text.includes('undeliverable+'), 'no result is repeated in the text');
    const structuredBytes = JSON.stringify(page.structuredContent).length;
    assert.ok(text.length * 50 < structuredBytes, `text ${text.length} B vs structured ${structuredBytes} B`);
  });

  test('an unknown job comes back as a tool error with the service code and request id', async () => {
    const result = await session.call('get_job', { job_id: '00000000-0000-4000-8000-000000000000' });
    assert.equal(result.isError, true);
    const text = textOf(result);
    assert.match(text, /request_not_found/);
    assert.match(text, /request id \S+/);
  });

  test('a bad key is a tool error with code unauthorized, and the server keeps serving', async () => {
    const badKey = 'ps_test.' + 'Z'.repeat(40);
    const unauthorised = await connectPresendMcp({ PRESEND_BASE_URL: service.baseUrl, PRESEND_API_KEY: badKey });
    try {
      const first = await unauthorised.call('get_results', { job_id: '00000000-0000-4000-8000-000000000000' });
      assert.equal(first.isError, true);
      assert.match(textOf(first), /unauthorized/);
      assert.ok(!textOf(first).includes(badKey));
      const second = await unauthorised.call('verify_email', { email: 'deliverable@example.com' });
      assert.equal(second.isError, true);
      assert.ok(!unauthorised.stderr().includes(badKey), 'the key is not logged');
    } finally {
      await unauthorised.close();
    }
  });

  test('invalid tool input is refused as a tool error, not a crash', async () => {
    const result = await session.call('verify_batch', { emails: [], max_credits: 5 });
    assert.equal(result.isError, true);
    const still = await session.call('get_job', { job_id: 'not-a-uuid' });
    assert.equal(still.isError, true);
  });

  test('a call still running when the host closes stdin is answered before the server exits, and stdout holds only protocol', async () => {
    const messages = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'verify_email', arguments: { email: 'deliverable@example.com' } } },
    ];
    const run = await runCli(['mcp'], { PRESEND_BASE_URL: service.baseUrl, PRESEND_API_KEY: key }, messages.map((m) => JSON.stringify(m)).join('\n') + '\n');
    assert.equal(run.code, 0, run.stderr);
    const answers = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: number; result: { structuredContent?: { presend: { decision: string } } } });
    assert.deepEqual(
      answers.map((answer) => answer.id),
      [1, 2],
    );
    assert.equal(answers[1]?.result.structuredContent?.presend.decision, 'send');
    assert.match(run.stderr, /serving 4 tools/);
  });
});
