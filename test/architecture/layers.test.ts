import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cycles, importEdges, unitOf, type ImportEdge } from './import-graph.js';

/**
 * The floors of src/ (docs/architecture.md): a unit may import its own floor's others (no
 * circle between them) and the floors below, never a floor above. A new folder under src/ gets
 * its floor here, as a decision.
 */
const FLOORS: Record<string, number> = {
  'src/core': 0,
  'src/logger.ts': 0,
  'src/files': 1,
  'src/mailworld': 1,
  'src/queue': 1,
  'src/feedback': 1,
  'src/config.ts': 2,
  'src/store': 3,
  'src/service': 4,
  'src/api': 5,
  'src/client': 6,
  'src/dashboard': 6,
  'src/processes': 7,
  'src/mcp': 7,
  'src/index.ts': 7,
  'src/cli': 8,
};

const ROOT = join(import.meta.dirname, '..', '..');

/** The imports that point up a floor, and units no floor was given. */
function upward(edges: readonly ImportEdge[]): string[] {
  const problems = new Set<string>();
  for (const { from, to } of edges) {
    const a = unitOf(from);
    const b = unitOf(to);
    const fromFloor = FLOORS[a];
    const toFloor = FLOORS[b];
    if (fromFloor === undefined) problems.add(`${a} has no floor in test/architecture/layers.test.ts`);
    else if (toFloor === undefined) problems.add(`${b} has no floor in test/architecture/layers.test.ts`);
    else if (toFloor > fromFloor) problems.add(`${from} imports ${to}: floor ${fromFloor} (${a}) reaches up to floor ${toFloor} (${b})`);
  }
  return [...problems];
}

describe('the layers of src/ point down (docs/architecture.md)', () => {
  const edges = importEdges(ROOT);

  test('the graph is read: src/ imports itself in many places', () => {
    assert.ok(edges.length > 500, `${edges.length} imports`);
    assert.ok(edges.some((e) => e.from === 'src/config.ts' && e.to === 'src/core/engine-config.ts'), 'config.ts takes the engine settings from the engine');
  });

  test('no import reaches up a floor: the engine imports no config, store, service or adapter; files/ no SDK', () => {
    assert.deepEqual(upward(edges), []);
  });

  test('no circle between the units of src/', () => {
    assert.deepEqual(cycles(edges, (path) => unitOf(path)), []);
  });

  test('no circle between the files of src/, type-only imports included (each file reads without its dependants)', () => {
    assert.deepEqual(cycles(edges, (path) => path), []);
  });

  test('a back-edge planted in a copy is caught, and so is a circle', (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'presend-layers-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    mkdirSync(join(dir, 'src', 'core'), { recursive: true });
    mkdirSync(join(dir, 'src', 'files'), { recursive: true });
    mkdirSync(join(dir, 'src', 'mailworld'), { recursive: true });
    writeFileSync(join(dir, 'src', 'config.ts'), "import { x } from './core/engine-config.js';\nexport const y = x;\n");
    writeFileSync(join(dir, 'src', 'core', 'engine-config.ts'), "import type { PresendConfig } from '../config.js';\nexport const x = 1;\n");
    writeFileSync(join(dir, 'src', 'files', 'a.ts'), "export { b } from '../mailworld/b.js';\n");
    writeFileSync(join(dir, 'src', 'mailworld', 'b.ts'), "import { a } from '../files/a.js';\nexport const b = await import('../files/a.js');\n");
    const planted = importEdges(dir);
    assert.deepEqual(upward(planted), ['src/core/engine-config.ts imports src/config.ts: floor 0 (src/core) reaches up to floor 2 (src/config.ts)']);
    assert.deepEqual(
      cycles(planted, (path) => unitOf(path)).map((c) => c.join(' ')),
      ['src/config.ts src/core', 'src/files src/mailworld'],
    );
    assert.deepEqual(
      cycles(planted, (path) => path).map((c) => c.join(' ')),
      ['src/config.ts src/core/engine-config.ts', 'src/files/a.ts src/mailworld/b.ts'],
    );
  });
});
