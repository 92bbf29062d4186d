/**
 * The bounded, fair queue in front of password hashes (src/service/owners/fair-gate.ts): jobs start in
 * turns by key, and a key's or the gate's full queue refuses at once instead of growing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FairGate } from '../../src/service/owners/fair-gate.js';

/** A job that records its start and ends when the test says. */
function jobs() {
  const started: string[] = [];
  const finishers = new Map<string, () => void>();
  const job = (name: string) => () =>
    new Promise<string>((resolve) => {
      started.push(name);
      finishers.set(name, () => resolve(name));
    });
  /** Ends a running job and lets the gate hand its slot on. */
  const finish = async (name: string) => {
    const f = finishers.get(name);
    assert.ok(f, `${name} is not running`);
    f();
    await new Promise((turn) => setImmediate(turn));
  };
  return { started, job, finish };
}

test('waiting jobs start one key at a time, in turn, whatever order they came in', async () => {
  const gate = new FairGate({ concurrency: 1, perKey: 10, total: 10 });
  const { started, job, finish } = jobs();
  const runs = ['a1', 'a2', 'a3', 'a4', 'b1', 'c1', 'b2'].map((name) => gate.offer(name.slice(0, 1), job(name)));
  assert.ok(runs.every((r) => r !== null));
  assert.deepEqual(started, ['a1']);
  for (const name of ['a1', 'a2', 'b1', 'c1', 'a3', 'b2']) await finish(name);
  assert.deepEqual(started, ['a1', 'a2', 'b1', 'c1', 'a3', 'b2', 'a4'], 'b1 and c1 wait for one of a’s turns each, not for all of a’s jobs');
  await finish('a4');
  assert.deepEqual(await Promise.all(runs), ['a1', 'a2', 'a3', 'a4', 'b1', 'c1', 'b2']);
});

test('past a key’s waiting room, or the gate’s, a job is refused at once; a running job does not count as waiting', async () => {
  const gate = new FairGate({ concurrency: 2, perKey: 2, total: 3 });
  const { started, job, finish } = jobs();
  const a = ['a1', 'a2', 'a3', 'a4'].map((name) => gate.offer('a', job(name)));
  assert.equal(gate.offer('a', job('a5')), null, 'a has two running and two waiting');
  assert.ok(gate.offer('b', job('b1')), 'three waiting in all');
  assert.equal(gate.offer('c', job('c1')), null, 'the gate is full');
  assert.deepEqual(started, ['a1', 'a2']);
  await finish('a1');
  assert.ok(gate.offer('c', job('c2')), 'room again once a waiting job started');
  for (const name of ['a2', 'b1', 'a3', 'c2', 'a4']) await finish(name);
  assert.deepEqual(started, ['a1', 'a2', 'a3', 'b1', 'a4', 'c2']);
  assert.ok(gate.offer('a', job('a6')), 'a key whose jobs all ended may queue again');
  await finish('a6');
  assert.deepEqual(await Promise.all(a), ['a1', 'a2', 'a3', 'a4']);
});
