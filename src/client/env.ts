/**
 * PRESEND_BASE_URL / PRESEND_API_KEY (docs/design.md §2), read the same way by the SDK, the CLI
 * and the MCP server. Only these two are read: a caller's machine need not carry the
 * service's configuration.
 */
import { DEFAULT_BASE_URL } from './client.js';

export interface ConnectionSettings {
  baseUrl: string;
  /** Null when neither the flag nor the environment gives one. */
  apiKey: string | null;
}

export function clientOptionsFromEnv(
  env: Record<string, string | undefined> = process.env,
  overrides: { baseUrl?: string | undefined; apiKey?: string | undefined } = {},
): ConnectionSettings {
  const baseUrl = overrides.baseUrl?.trim() || env.PRESEND_BASE_URL?.trim() || DEFAULT_BASE_URL;
  const apiKey = overrides.apiKey?.trim() || env.PRESEND_API_KEY?.trim() || null;
  return { baseUrl, apiKey };
}
