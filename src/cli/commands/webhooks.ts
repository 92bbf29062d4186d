/**
 * `presend webhooks add|list|remove|rotate|test` (docs/webhooks.md): an account's webhook
 * endpoints, managed on the store like `presend keys`. A signing secret is printed once, when the
 * endpoint is added and when it is rotated; the running servers do the sending.
 */
import type { Command } from 'commander';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Backend } from '../../store/backend.js';
import type { WebhookDelivery, WebhookEndpoint } from '../../store/roles/webhooks/webhook-records.js';
import { WEBHOOK_EVENT_TYPES } from '../../store/roles/webhooks/webhook-records.js';
import { account, refused } from '../../service/operations/admin.js';
import type { AdminOutcome } from '../../service/operations/admin.js';
import { addEndpoint, ROTATION_GRACE_MS, rotateEndpointSecret } from '../../service/webhooks/endpoints.js';
import { parseWholeNumber, runAdmin } from '../output/admin-command.js';
import { confirm } from '../output/confirm.js';

const DB = ['--database <url>', 'store URL (default PRESEND_DATABASE_URL or sqlite:./data/presend.db)'] as const;
const ACCOUNT = ['--account <name>', 'account name'] as const;

type Flags = { account: string; database?: string; json?: boolean };

/** The account's endpoint `id`, or why there is none. */
async function endpointOf(backend: Backend, accountName: string, id: string): Promise<AdminOutcome<{ accountId: string; endpoint: WebhookEndpoint }>> {
  const a = await account(backend, accountName);
  if (a.kind === 'refused') return a;
  const endpoint = /^[0-9a-f-]{36}$/i.test(id) ? await backend.webhooks.getEndpoint(a.value.id, id) : null;
  return endpoint ? { kind: 'done', value: { accountId: a.value.id, endpoint } } : refused('not_found', `no webhook endpoint ${id} in account "${accountName}"`);
}

const describe = (e: WebhookEndpoint): string =>
  `${e.id}  ${e.url}  ${e.events.join(',')}${e.disabledAt ? `  DISABLED ${e.disabledAt} (${e.disabledReason ?? ''})` : ''}${e.description ? `  "${e.description}"` : ''}`;

const shown = (e: WebhookEndpoint) => ({ id: e.id, url: e.url, events: e.events, description: e.description, createdAt: e.createdAt, disabledAt: e.disabledAt, disabledReason: e.disabledReason });

export function register(program: Command): void {
  const webhooks = program.command('webhooks').description('Manage the signed webhook endpoints of an account in the local store (admin).');
  webhooks
    .command('add <url>')
    .description(`Add an endpoint and print its signing secret once. Events: ${WEBHOOK_EVENT_TYPES.join(', ')} (default all).`)
    .requiredOption(...ACCOUNT)
    .option('--events <list>', 'comma list of event types to send')
    .option('--description <text>', 'what the endpoint is for')
    .option(...DB)
    .option('--json', 'print JSON')
    .addHelpText(
      'after',
      `
Example:
  $ presend webhooks add https://example.com/hooks/presend --account acme --events batch.completed,batch.failed
  Store the secret now (whsec_…): it is not shown again. Verify each delivery with it (docs/webhooks.md).

Addresses on loopback, private or link-local networks are refused unless PRESEND_ALLOW_PRIVATE_WEBHOOKS allows them.`,
    )
    .action(async (url: string, flags: Flags & { events?: string; description?: string }) =>
      runAdmin(flags, async (backend, config) => {
        const a = await account(backend, flags.account);
        if (a.kind === 'refused') return a;
        const added = await addEndpoint(backend.webhooks, {
          accountId: a.value.id,
          url,
          events: flags.events ? [flags.events] : [],
          description: flags.description ?? null,
          allowPrivate: config.allowPrivateWebhooks,
          now: new Date(),
        });
        if (added.kind === 'refused') return added;
        const { endpoint, secret } = added.value;
        return { text: `${describe(endpoint)}\nsigning secret: ${secret}\n(shown once)`, json: { ...shown(endpoint), secret } };
      }),
    );
  webhooks
    .command('list')
    .description('List the endpoints of an account (never their secrets).')
    .requiredOption(...ACCOUNT)
    .option(...DB)
    .option('--json', 'print JSON')
    .action(async (flags: Flags) =>
      runAdmin(flags, async (backend) => {
        const a = await account(backend, flags.account);
        if (a.kind === 'refused') return a;
        const endpoints = await backend.webhooks.listEndpoints(a.value.id);
        return { text: endpoints.length === 0 ? '(no webhook endpoints)' : endpoints.map(describe).join('\n'), json: endpoints.map(shown) };
      }),
    );
  webhooks
    .command('remove <id>')
    .description('Remove an endpoint and its delivery log; nothing more is sent to it.')
    .requiredOption(...ACCOUNT)
    .option('--yes', 'do not ask for confirmation (needed when not run in a terminal)')
    .option(...DB)
    .option('--json', 'print JSON')
    .action(async (id: string, flags: Flags & { yes?: boolean }) =>
      runAdmin(flags, async (backend) => {
        const found = await endpointOf(backend, flags.account, id);
        if (found.kind === 'refused') return found;
        process.stderr.write(`${describe(found.value.endpoint)}\n`);
        if (!flags.yes) await confirm('Remove this endpoint?', { doing: 'removing', past: 'removed' });
        await backend.webhooks.deleteEndpoint(found.value.accountId, id);
        return { text: `endpoint ${id} removed`, json: { removed: id } };
      }),
    );
  webhooks
    .command('rotate <id>')
    .description(`Give an endpoint a new signing secret, printed once; the old one keeps signing beside it for ${ROTATION_GRACE_MS / 3_600_000} h.`)
    .requiredOption(...ACCOUNT)
    .option(...DB)
    .option('--json', 'print JSON')
    .action(async (id: string, flags: Flags) =>
      runAdmin(flags, async (backend) => {
        const found = await endpointOf(backend, flags.account, id);
        if (found.kind === 'refused') return found;
        const rotated = await rotateEndpointSecret(backend.webhooks, { accountId: found.value.accountId, endpointId: id, now: new Date() });
        if (rotated.kind === 'refused') return rotated;
        const { endpoint, secret } = rotated.value;
        return {
          text: `new signing secret: ${secret}\n(shown once; the previous secret also signs until ${endpoint.previousSecretExpiresAt ?? ''})`,
          json: { ...shown(endpoint), secret, previousSecretExpiresAt: endpoint.previousSecretExpiresAt },
        };
      }),
    );
  webhooks
    .command('test <id>')
    .description('Queue a webhook.test event for an endpoint and wait for a running server to attempt it.')
    .requiredOption(...ACCOUNT)
    .option('--wait <seconds>', 'how long to wait for the first attempt', '30')
    .option(...DB)
    .option('--json', 'print JSON')
    .action(async (id: string, flags: Flags & { wait: string }) =>
      runAdmin(flags, async (backend) => {
        const waitMs = parseWholeNumber(flags.wait, '--wait') * 1000;
        const found = await endpointOf(backend, flags.account, id);
        if (found.kind === 'refused') return found;
        const queued = await backend.webhooks.sendTest({ accountId: found.value.accountId, endpointId: id, now: new Date() });
        if (!queued) return refused('not_found', `no webhook endpoint ${id}`);
        const attempted = await firstAttempt(backend, found.value.accountId, id, queued.id, waitMs);
        if (!attempted) {
          return refused('not_found', `the test event ${queued.eventId} is queued but no server attempted it within ${flags.wait} s: is \`presend serve\` running on this store?`);
        }
        const text =
          attempted.state === 'delivered'
            ? `delivered: HTTP ${attempted.lastStatus ?? ''} (webhook-id ${attempted.eventId})`
            : `not delivered: ${attempted.lastError ?? 'no answer'} (webhook-id ${attempted.eventId}; retried on the schedule of docs/webhooks.md)`;
        if (attempted.state !== 'delivered') process.exitCode = 1;
        return { text, json: attempted };
      }),
    );
}

/** The delivery once a sender has attempted it, or null after `waitMs`. */
async function firstAttempt(backend: Backend, accountId: string, endpointId: string, deliveryId: string, waitMs: number): Promise<WebhookDelivery | null> {
  const until = Date.now() + waitMs;
  for (;;) {
    const delivery = (await backend.webhooks.deliveries(accountId, endpointId, 50)).find((d) => d.id === deliveryId);
    if (delivery && delivery.lastAttemptAt !== null) return delivery;
    if (Date.now() >= until) return null;
    await sleep(200);
  }
}
