import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { openStore } from '../../src/store/open-store.js';
import { runStoreContract } from './contract.js';

runStoreContract('sqlite in memory', () => openStore('sqlite::memory:'));

const dir = mkdtempSync(join(tmpdir(), 'presend-store-'));
process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
runStoreContract('sqlite file', () => openStore(`sqlite:${join(dir, 'store.db')}`));
