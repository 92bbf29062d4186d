/**
 * Renders docs/reply-table.md from the reply table and the documented replies, so the readable
 * copy cannot drift from the code (test/core/classify-reply.test.ts compares them).
 * Rewrite it with: node --import tsx test/core/reply-table-doc.ts --write
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { classifyRcptReply } from '../../src/core/replies/classify-by-table.js';
import { REPLY_TABLE } from '../../src/core/replies/table.js';
import { parseReplyText } from '../../src/core/replies/parse.js';
import { DOCUMENTED_REPLIES, NO_MAILBOX_WORDINGS, QUOTA_WORDINGS } from './documented-replies.js';

export const REPLY_DOC_PATH = fileURLToPath(new URL('../../docs/reply-table.md', import.meta.url));

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
const code = (text: string): string => `\`${text.replace(/`/g, "'")}\``;

function condition(rule: (typeof REPLY_TABLE)[number]): string {
  const parts = [rule.codes === 'failure' ? '4xx/5xx' : rule.codes];
  if (rule.enhanced) parts.push(`enhanced ${code(rule.enhanced.source)}`);
  if (rule.text) parts.push(rule.text.source.length > 60 ? 'wording (see src/core/replies/wording.ts)' : `text ${code(rule.text.source)}`);
  if (rule.unless) parts.push('unless policy wording');
  return parts.join(', ');
}

export function renderReplyTable(): string {
  const lines = [
    '# How Presend reads an RCPT reply',
    '',
    '<!-- Generated from src/core/replies/table.ts and test/core/documented-replies.ts by',
    '     `node --import tsx test/core/reply-table-doc.ts --write`; a test fails when it is stale. -->',
    '',
    'Each reply to `RCPT TO` is read by meaning, not by its code alone: the first row below that',
    'matches decides. Verdicts follow from the class (src/core/classify-finding.ts): `no_mailbox` and',
    '`disabled` → UNDELIVERABLE_NO_MAILBOX, `full` → MAILBOX_FULL, `greylisted` → GREYLISTED,',
    '`throttled` and `temporary` → TRANSIENT, `blocked` and `rejected_unclassified` → UNKNOWN.',
    '',
    'Each row says whom the reply is about. `recipient`: that address\'s answer — its verdict, or a',
    'retry window for it alone (a full mailbox, a mailbox receiving mail too fast, a 4xx about it);',
    'nothing else slows. `client`: the prober — its IP, rate, connections or errors, a busy server,',
    'a 421, a policy block.',
    '',
    '`throttled` is the class the SMTP session reads: the server limits the prober (a 421, a rate,',
    'connection, recipient or error limit, X.5.3, a 4.7.x deferral). Nothing is known about the',
    'mailbox; the address is asked again later in a fresh session and the host backs off. An',
    'address the host kept unasked past `PRESEND_HOST_THROTTLE_BOUND_MS` is left `recheck_scheduled`',
    '(reason `host_throttled`), never TRANSIENT.',
    '',
    '## The table (first match wins)',
    '',
    '| # | row | class | about | when | why | source |',
    '|---|---|---|---|---|---|---|',
    ...REPLY_TABLE.map((rule, i) => `| ${i + 1} | ${rule.id} | ${rule.class} | ${rule.about} | ${cell(condition(rule))} | ${cell(rule.why)} | ${cell(rule.source)} |`),
    '',
    '## Documented replies and how each is read',
    '',
    'Every row is a test (test/core/classify-reply.test.ts).',
    '',
    '| who | reply | class | row | source |',
    '|---|---|---|---|---|',
    ...DOCUMENTED_REPLIES.map((d) => {
      const judged = classifyRcptReply(parseReplyText(d.reply));
      return `| ${cell(d.who)} | ${code(cell(d.reply))} | ${judged.class} | ${judged.rule} | ${cell(d.source)} |`;
    }),
    '',
    '## Full-mailbox wording by language',
    '',
    'Each wording alone, after a bare code, is read as `full`.',
    '',
    '| language | wording | source |',
    '|---|---|---|',
    ...QUOTA_WORDINGS.map((q) => `| ${q.language} | ${cell(q.wording)} | ${cell(q.source)} |`),
    '',
    '## "No such mailbox" wording by language',
    '',
    'Each wording alone, after a bare 550, is read as `no_mailbox`.',
    '',
    '| language | wording | source |',
    '|---|---|---|',
    ...NO_MAILBOX_WORDINGS.map((q) => `| ${q.language} | ${cell(q.wording)} | ${cell(q.source)} |`),
    '',
    '## Decisions worth knowing',
    '',
    '- A policy block (X.7.x, block lists, "blocked", relay or access denials) is never read as "no such',
    '  mailbox", even when the text also names the recipient; Microsoft\'s `5.4.1 … Recipient address',
    '  rejected: Access denied` is the documented exception (Directory-Based Edge Blocking).',
    '- Over-quota wording wins over the code (Orange sends 552 5.1.1 for a full mailbox; a Polish host',
    '  554 5.7.1 "Quota exceeded"), but the sender\'s own quota ("sending quota", "daily quota") is',
    '  throttling, and "insufficient system storage" (X.3.1) is the server\'s disk, not the mailbox.',
    '- A mailbox receiving mail too fast is about that mailbox, whatever the code: Gmail answers so',
    '  with 450 4.2.1 and with 550 5.2.1 (the code of a disabled mailbox). That address gets a retry',
    '  window (TRANSIENT); the host is not slowed. Throttling of the client wins over the rest.',
    '- A bare 4.7.x "try again later" is throttling; greylisting is read only when named (postgrey,',
    '  "Greylisted", "try again in N minutes") or documented (Mimecast 451 "Internal resource',
    '  temporarily unavailable").',
    '- Postfix prefixes every RCPT restriction with "Recipient address rejected:"; only the reason',
    '  after it counts, so that prefix alone is not "no such mailbox".',
    '',
  ];
  return lines.join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const text = renderReplyTable();
  if (process.argv.includes('--write')) writeFileSync(REPLY_DOC_PATH, text);
  else process.stdout.write(text === readFileSync(REPLY_DOC_PATH, 'utf8') ? 'docs/reply-table.md is current\n' : text);
}
