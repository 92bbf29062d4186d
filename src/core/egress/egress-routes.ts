/**
 * PRESEND_EGRESS: the routes probes can leave by (issue 22). Each route is a local source
 * address and/or a SOCKS5 proxy, with its own HELO name (the PTR of the address receivers see),
 * and optionally the provider families it is pinned to ("Microsoft via route b", as Reacher
 * allows a proxy per provider).
 *
 * Given as JSON, in the variable or in a file it names (`@/etc/presend/egress.json`):
 *   [{"name":"a","source":"203.0.113.5","helo":"probe-a.example.com"},
 *    {"name":"b","proxy":"socks5://u:p@198.51.100.7:1080","helo":"probe-b.example.com","providers":["microsoft"]}]
 * JSON rather than a home-made list syntax: a proxy's password may hold any character.
 */
import { isIP } from 'node:net';
import { z } from 'zod';
import { heloNameProblem } from '../helo-name.js';

export interface EgressRoute {
  name: string;
  /** Local address the route's connections are bound to; null: the system's choice. */
  source: string | null;
  /** `socks5://…` the route's connections go through; null: direct. */
  proxy: string | null;
  heloName: string;
  /** Provider families pinned to this route (they use only routes that pin them); empty: any family not pinned elsewhere. */
  providers: string[];
}

const ROUTE = z
  .object({
    name: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,31}$/i, 'a route name is 1–32 letters, digits, "_" or "-"'),
    source: z.string().refine((s) => isIP(s) !== 0, 'source must be an IP address').optional(),
    proxy: z.string().regex(/^socks5h?:\/\//, 'proxy must be socks5://user:pass@host:port').optional(),
    helo: z.string().optional(),
    providers: z.array(z.string().regex(/^[a-z]+$/)).optional(),
  })
  .strict();

/**
 * The routes of `json`; `defaultHelo` (PRESEND_HELO_NAME) for routes without one. Throws an
 * Error whose message says what is wrong (config.ts names the variable).
 */
export function parseEgressRoutes(json: string, defaultHelo: string | null): EgressRoute[] {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    throw new Error('expected a JSON array of routes, e.g. [{"name":"a","source":"203.0.113.5","helo":"probe-a.example.com"}]');
  }
  const parsed = z.array(ROUTE).min(1, 'at least one route').safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`route ${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`);
  }
  const names = new Set<string>();
  return parsed.data.map((route) => {
    if (names.has(route.name)) throw new Error(`two routes are named "${route.name}"`);
    names.add(route.name);
    const heloName = route.helo ?? defaultHelo;
    if (!heloName) throw new Error(`route ${route.name}: no helo, and PRESEND_HELO_NAME is not set`);
    const problem = heloNameProblem(heloName);
    if (problem) throw new Error(`route ${route.name}: helo ${problem}`);
    return { name: route.name, source: route.source ?? null, proxy: route.proxy ?? null, heloName, providers: route.providers ?? [] };
  });
}
