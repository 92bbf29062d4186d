import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { startEngineWorld } from './world-engine.js';

describe('a single-label domain', () => {
  test('is valid syntax and gets its verdict from DNS: an unknown one is NXDOMAIN, a served one is probed', async (t) => {
    const ew = await startEngineWorld({
      hosts: [{ name: 'mx.io' }],
      domains: [{ name: 'io', mx: [{ host: 'mx.io', preference: 10 }], mailboxes: { alice: 'accept' } }],
    });
    t.after(() => ew.close());
    const served = await ew.engine.verify('alice@io');
    assert.equal(served.envelope.verdict, 'DELIVERABLE', JSON.stringify(served.envelope.reasons));
    assert.equal(served.envelope.evidence_class, 'smtp_rcpt');
    const unknown = await ew.engine.verify('alice@zz');
    assert.equal(unknown.envelope.verdict, 'UNDELIVERABLE_NO_MAIL_SERVER');
    assert.deepEqual(unknown.envelope.reasons, ['nxdomain']);
  });
});
