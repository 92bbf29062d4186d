/**
 * What each dialect's backend takes from the process that opens it (open-backend.ts): the
 * settings it reads and where it logs. Its own file so the dialects' backends do not import
 * the module that chooses between them.
 */
import type { PresendConfig } from '../config.js';
import type { Logger } from '../logger.js';

/** Where the backend reports what it survives (a lost LISTEN connection, an idle client dropped by the server). */
export type Log = Logger;

/** What a backend reads from the configuration (src/config.ts). */
export type BackendConfig = Pick<
  PresendConfig,
  'databasePoolSize' | 'sharedPoolSize' | 'mxSlotLeaseMs' | 'maxSessionsPerMx'
>;
