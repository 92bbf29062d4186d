/**
 * The dashboard's static files (src/dashboard/assets: one stylesheet, one small script), found
 * from the sources or from the build (which ships src/dashboard/assets beside dist, as the
 * migrations are). Their URLs carry a digest of their content, so they can be cached for long.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

function assetsDir(): string {
  const candidates = [new URL('./assets/', import.meta.url), new URL('../../src/dashboard/assets/', import.meta.url)];
  for (const candidate of candidates) {
    const dir = fileURLToPath(candidate);
    if (existsSync(join(dir, 'dashboard.js'))) return dir;
  }
  throw new Error(`dashboard assets not found next to ${import.meta.url}`);
}

export const ASSETS_DIR = assetsDir();

export const ASSET_VERSION = (() => {
  const digest = createHash('sha256');
  for (const name of readdirSync(ASSETS_DIR).sort()) digest.update(name).update(readFileSync(join(ASSETS_DIR, name)));
  return digest.digest('hex').slice(0, 12);
})();
