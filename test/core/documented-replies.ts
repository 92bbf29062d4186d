/**
 * Replies as providers and MTAs document or send them, with the classification each must get
 * and where the wording comes from. The reply table's tests run every row; docs/reply-table.md
 * lists them. Addresses and IPs of the originals are replaced by documentation values
 * (example.com, 203.0.113.7) where the source showed a real one.
 */
import type { RcptClass } from '../../src/core/replies/classify-by-table.js';

export interface DocumentedReply {
  who: string;
  /** The reply as sent; multi-line replies with CRLF between lines. */
  reply: string;
  expected: RcptClass;
  source: string;
}

const GMAIL = 'https://support.google.com/a/answer/3726730';
const MS_NDR = 'https://learn.microsoft.com/en-us/exchange/troubleshoot/email-delivery/ndr/non-delivery-reports-in-exchange-online';
const EOP = 'https://smtp.codes/exchangeonline';
const YAHOO = 'https://senders.yahooinc.com/smtp-error-codes/';
const YAHOO_HELP = 'http://help.yahoo.com/l/in/yahoo/mail/original/abuse/abuse-57.html';
const ICLOUD = 'https://smtp.codes/icloud';
const ZOHO = 'https://smtp.codes/zoho';
const MIMECAST = 'https://mimecastsupport.zendesk.com/hc/en-us/articles/34000709564691-Policies-Mimecast-SMTP-Error-Codes';
const SMTP_550 = 'https://smtp.codes/550';
const ORANGE = 'https://www.postmastery.com/orange-postmaster-smtp-error-codes-ofr/';
const BYTECAMP = 'https://www.bytecamp.net/de/faq/email/zustellen.html';
const SITEPACKAGE = 'http://www.sitepackage.de/service/dokumentation/auswertung/typische-fehlermeldungen-bei-unzustellbarkeit.html';
const MS_FR_5110 = 'https://learn.microsoft.com/fr-fr/exchange/troubleshoot/email-delivery/ndr/fix-error-code-550-5-1-10-in-exchange-online';
const POSTFIX_SMTPD = 'https://github.com/vdukhovni/postfix/blob/master/postfix/src/smtpd/smtpd.c';
const POSTFIX_LIST = 'MailRoute, "Postfix SMTP Response Errors" (list of Postfix smtpd replies)';
const EXIM_SMTP_IN = 'https://github.com/Exim/exim/blob/master/src/src/smtp_in.c';
const RFC3463 = 'https://www.rfc-editor.org/rfc/rfc3463';
const MAILWORLD = 'src/mailworld/rcpt-policy.ts (this repository)';

export const DOCUMENTED_REPLIES: readonly DocumentedReply[] = [
  // Gmail / Google Workspace
  { who: 'Gmail, accepted', reply: '250 2.1.5 OK a1-20020a170902b70100b001e0b5d8f1ebsi123 - gsmtp', expected: 'accepted', source: 'https://www.rfc-editor.org/rfc/rfc5321#section-4.2.2' },
  {
    who: 'Gmail, no such user',
    reply:
      "550-5.1.1 The email account that you tried to reach does not exist. Please try\r\n550-5.1.1 double-checking the recipient's email address for typos or\r\n550-5.1.1 unnecessary spaces. For more information, go to\r\n550 5.1.1  https://support.google.com/mail/?p=NoSuchUser a1si123 - gsmtp",
    expected: 'no_mailbox',
    source: GMAIL,
  },
  {
    who: 'Gmail, one mailbox receiving too fast (temporary)',
    reply:
      '450-4.2.1 The user you are trying to contact is receiving mail at a rate that\r\n450-4.2.1 prevents additional messages from being delivered. Please resend your\r\n450-4.2.1 message at a later time. If the user is able to receive mail at that\r\n450-4.2.1 time, your message will be delivered. For more information, please\r\n450-4.2.1 visit\r\n450 4.2.1 https://support.google.com/mail/?p=ReceivingRate 13si703206wrw.433 - gsmtp',
    expected: 'temporary',
    source: 'https://pastebin.com/7XTHEi9g',
  },
  {
    who: 'Gmail, one mailbox receiving too fast, under 550 5.2.1 (not a disabled account)',
    reply:
      '550-5.2.1 The user you are trying to contact is receiving mail at a rate that\r\n550-5.2.1 prevents additional messages from being delivered. For more\r\n550-5.2.1 information, please visit\r\n550 5.2.1 https://support.google.com/mail/?p=ReceivingRatePerm p41si4843565qte.548 - gsmtp',
    expected: 'temporary',
    source: 'https://pastebin.com/SpZumxtS',
  },
  { who: 'Gmail, receiving too quickly', reply: '450 4.2.1 The user you are trying to contact is receiving mail too quickly. Please resend your message at a later time.', expected: 'temporary', source: GMAIL },
  { who: 'Gmail, mailbox disabled', reply: '550-5.2.1 The email account that you tried to reach is disabled.\r\n550 5.2.1 https://support.google.com/mail/?p=DisabledUser - gsmtp', expected: 'disabled', source: GMAIL },
  {
    who: 'Gmail, over quota',
    reply: '452-4.2.2 The email account that you tried to reach is over quota. Please direct\r\n452-4.2.2 the recipient to\r\n452 4.2.2 https://support.google.com/mail/?p=OverQuotaTemp d34si16258651pld.82 - gsmtp',
    expected: 'full',
    source: 'https://pastebin.com/qQhCb0Dc',
  },
  {
    who: 'Gmail, inbox out of storage',
    reply: "452-4.2.2 The recipient's inbox is out of storage space. Please direct the recipient to\r\n452 4.2.2 https://support.google.com/mail/?p=OverQuotaTemp",
    expected: 'full',
    source: 'https://github.com/orgs/postalserver/discussions/3596',
  },
  {
    who: 'Gmail, message judged unsolicited',
    reply: '550-5.7.1 [203.0.113.7] Our system has detected that this message is likely\r\n550 5.7.1 unsolicited mail. To reduce the amount of spam sent to Gmail - gsmtp',
    expected: 'blocked',
    source: GMAIL,
  },
  {
    who: 'Gmail, IP temporarily blocked (421)',
    reply: '421 4.7.0 Our system has detected an unusual rate of unsolicited mail originating from your IP address. To protect our users from spam, mail sent from your IP address has been temporarily blocked.',
    expected: 'blocked',
    source: GMAIL,
  },
  { who: 'Gmail, try again later, closing connection', reply: '421 4.7.0 Try again later, closing connection.', expected: 'throttled', source: GMAIL },
  { who: 'Gmail, server busy', reply: '421 4.4.5 Server busy, try again later.', expected: 'throttled', source: GMAIL },
  { who: 'Gmail, too many recipients', reply: '452 4.5.3 Your message has too many recipients.', expected: 'throttled', source: GMAIL },
  { who: 'Gmail, policy size per transaction', reply: '452 4.5.3 Domain policy size per transaction exceeded, please try this recipient in a separate transaction.', expected: 'throttled', source: GMAIL },
  { who: 'Gmail, one domain per transaction', reply: '451 4.3.0 Multiple destination domains per transaction is unsupported. Please try again.', expected: 'throttled', source: GMAIL },
  { who: 'Gmail, relay limit', reply: '450 4.2.1 Peak SMTP relay limit exceeded for customer. This is a temporary error.', expected: 'throttled', source: GMAIL },
  { who: 'Gmail, temporarily rejected', reply: '451 4.3.0 Mail server temporarily rejected message.', expected: 'temporary', source: GMAIL },

  // Microsoft 365 / Exchange Online / Outlook.com
  {
    who: 'Microsoft 365, directory-based edge blocking',
    reply: '550 5.4.1 Recipient address rejected: Access denied. AS(201806281) [DM6NAM11FT012.eop-nam11.prod.protection.outlook.com]',
    expected: 'no_mailbox',
    source: 'https://www.suped.com/learn/email-deliverability/what-causes-the-550-541-recipient-address-rejected-access-denied-as201806281-bounce-error-on-o36',
  },
  { who: 'Exchange Online Protection, DBEB', reply: '550 5.4.1 [email@example.com]: Recipient address rejected: Access denied [example.com]', expected: 'no_mailbox', source: EOP },
  { who: 'Exchange, recipient not found', reply: '550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient not found by SMTP address lookup', expected: 'no_mailbox', source: 'https://pastebin.com/4NLVeuUu' },
  { who: 'Exchange, recipient not found (5.1.1)', reply: '550 5.1.1 RESOLVER.ADR.RecipNotFound; not found', expected: 'no_mailbox', source: 'https://pastebin.com/2SNHTj4Y' },
  {
    who: 'Exchange Online Protection, banned sending IP',
    reply: '550 5.7.606 Access denied, banned sending IP [203.0.113.7]. To request removal from this list please visit https://sender.office.com/ and follow the directions. (AS16012609)',
    expected: 'blocked',
    source: 'https://smtpfieldmanual.com/spamfilter/exchangeonline',
  },
  {
    who: 'Exchange Online Protection, IP not accepted',
    reply: '550 5.7.708 Service unavailable. Access denied, traffic not accepted from this IP. For more information please go to https://go.microsoft.com/fwlink/?LinkID=526655 AS(7171)',
    expected: 'blocked',
    source: 'https://www.simplefastwebsites.com/errors/email/smtp-550-5-7-708-m365-traffic-not-accepted-from-ip/',
  },
  { who: 'Exchange Online Protection, Spamhaus', reply: '550 5.7.1 Service unavailable, Client host [203.0.113.7] blocked using Spamhaus. To request removal from this list see https://www.spamhaus.org/query/ip/203.0.113.7 (AS16012611)', expected: 'blocked', source: EOP },
  { who: 'Exchange Online Protection, server busy (IP throttling)', reply: '451 4.7.500 Server busy. Please try again later from [203.0.113.7]. (AS77712344)', expected: 'throttled', source: EOP },
  { who: 'Exchange Online, concurrent connections', reply: '421 4.3.2 The maximum number of concurrent connections per resource forest has exceeded a limit, closing transmission channel. PRX8', expected: 'throttled', source: EOP },
  { who: 'Exchange Online, temporary server error', reply: '451 4.7.0 Temporary server error. Please try again later. PRX4', expected: 'temporary', source: EOP },
  { who: 'Exchange Online, recipient thread limit', reply: '432 4.3.2 STOREDRV.Deliver; recipient thread limit exceeded', expected: 'temporary', source: MS_NDR },
  {
    who: 'Outlook.com, mailbox unavailable',
    reply: '550 5.5.0 Requested action not taken: mailbox unavailable (S2017062302). [VI1EUR06FT012.eop-eur06.prod.protection.outlook.com]',
    expected: 'no_mailbox',
    source: 'https://blog.silverpc.hu/2025/09/13/error-mailbox-unavailable-s2017062302-que-significa-y-como-solucionar-este-correo-bloqueado',
  },

  // Yahoo / AOL
  { who: 'Yahoo, no such account', reply: "554 delivery error: dd This user doesn't have a yahoo.com account (testing123@yahoo.com) [-5] - mta123.mail.mud.yahoo.com", expected: 'no_mailbox', source: YAHOO },
  { who: 'Yahoo, over quota', reply: '554 delivery error: dd Sorry, your message to someone@yahoo.com cannot be delivered. This account is over quota.', expected: 'full', source: YAHOO_HELP },
  {
    who: 'Yahoo, mailbox disabled',
    reply: '554 30 Sorry, your message to someone@yahoo.com cannot be delivered. This mailbox is disabled (554.30)',
    expected: 'disabled',
    source: 'https://www.suped.com/knowledge/email-deliverability/troubleshooting/why-does-yahoo-report-a-closed-account-when-kickbox-says-deliverable',
  },
  {
    who: 'Yahoo China, account disabled',
    reply: '554 delivery error:Sorry your message to someone@yahoo.com.cn cannot be delivered. This account has been disabled or discontinued.',
    expected: 'disabled',
    source: 'http://help.szhot.com/text_show.php?id=170',
  },
  {
    who: 'Yahoo, deferred for volume or complaints',
    reply: '421 4.7.0 [TSS04] Messages from 203.0.113.7 temporarily deferred due to unexpected volume or user complaints - 4.16.55.1; see https://postmaster.yahooinc.com/error-codes',
    expected: 'throttled',
    source: 'https://smtp.codes/yahoo',
  },
  { who: 'Yahoo, excessive unknown recipients', reply: '451 VS1-IP Excessive unknown recipients - possible Open Relay (#4.1.8)', expected: 'throttled', source: YAHOO_HELP },
  { who: 'Yahoo, servers busy', reply: '421 Resources temporarily unavailable. Please try again later.', expected: 'throttled', source: YAHOO_HELP },
  { who: 'Yahoo, servers busy (451)', reply: '451 mta1.am0.yahoodns.net Resources temporarily unavailable. Please try again later [#4.16.1].', expected: 'throttled', source: 'https://smtp.codes/yahoo' },
  { who: 'Yahoo, receiving too quickly', reply: '450 User is receiving mail too quickly', expected: 'temporary', source: 'https://smtp.codes/yahoo' },
  { who: 'AOL, full mailbox', reply: '552 jdoe@aol.com has a full mailbox', expected: 'full', source: 'http://www.chilipepperweb.net/email-support/mail-quota-exceeded.html' },
  { who: 'Yahoo/AOL, mailbox not found under 552', reply: '552 1 Requested mail action aborted, mailbox not found', expected: 'no_mailbox', source: 'https://www.cloudmailin.com/smtp-troubleshooter/552-error' },

  // Apple iCloud
  { who: 'iCloud, no such user', reply: '550 5.1.1 <example@icloud.com>: user does not exist', expected: 'no_mailbox', source: ICLOUD },
  { who: 'iCloud, unknown alias', reply: '550 5.1.1 unknown or illegal alias: example@icloud.com', expected: 'no_mailbox', source: 'https://note.com/sendmagic/n/n079f49339312' },
  { who: 'iCloud, over quota', reply: '450 4.2.2 user is overquota', expected: 'full', source: 'https://www.suped.com/knowledge/email-deliverability/troubleshooting/how-to-troubleshoot-and-resolve-email-bounces-to-icloud-mecom-and-maccom-addresses' },
  {
    who: 'iCloud, excessive volume',
    reply: '421 4.7.1 Messages to example@icloud.com deferred due to excessive volume. Try again later - https://support.apple.com/en-us/HT204137',
    expected: 'throttled',
    source: ICLOUD,
  },
  { who: 'iCloud, service unavailable, try again later', reply: '451 4.7.1 Service unavailable - try again later', expected: 'throttled', source: ICLOUD },
  { who: 'iCloud, too many errors', reply: '421 4.7.0 me.com Error: too many errors', expected: 'throttled', source: ICLOUD },
  { who: 'iCloud, local policy', reply: '550 5.7.1 [CS01] Message rejected due to local policy. Please visit https://support.apple.com/en-us/HT204137', expected: 'blocked', source: ICLOUD },
  { who: 'iCloud, Spamhaus DBL', reply: '550 5.7.1 Your email was rejected due to having a domain present in the Spamhaus DBL -- see https://www.spamhaus.org/dbl/', expected: 'blocked', source: ICLOUD },
  { who: 'iCloud, Proofpoint block', reply: '550 5.7.0 Blocked- see https://support.proofpoint.com/dnsbl-lookup.cgi?ip=203.0.113.7', expected: 'blocked', source: 'https://note.com/sendmagic/n/n079f49339312' },
  { who: 'iCloud, directory incident', reply: '550 5.1.1 <someone@icloud.com>: user lookup success but no user record found', expected: 'temporary', source: 'https://status.socketlabs.com/incident/306' },

  // Zoho, Mimecast, Proofpoint, Barracuda, AT&T
  { who: 'Zoho, user unknown', reply: '550 5.1.1 <example@zoho.com> User unknown', expected: 'no_mailbox', source: ZOHO },
  { who: 'Zoho, restricted by policy', reply: '452 <example@zoho.com> Mailbox delivery restricted by policy error', expected: 'blocked', source: ZOHO },
  { who: 'Zoho, rejected by destination domain', reply: '541 5.4.1 Mail rejected by destination domain', expected: 'blocked', source: ZOHO },
  { who: 'Zoho, temporary system error', reply: '452 4.3.1 Temporary System Error', expected: 'temporary', source: ZOHO },
  { who: 'Mimecast, invalid recipient', reply: '550 Invalid Recipient - https://community.mimecast.com/docs/DOC-1369#550', expected: 'no_mailbox', source: MIMECAST },
  { who: 'Mimecast, administrative prohibition', reply: '550 Administrative prohibition - envelope blocked - https://community.mimecast.com/docs/DOC-1369#550', expected: 'blocked', source: MIMECAST },
  { who: 'Mimecast, greylisting', reply: '451 Internal resource temporarily unavailable - https://community.mimecast.com/docs/DOC-1369#451', expected: 'greylisted', source: MIMECAST },
  { who: 'Mimecast, sender blocked', reply: '421 Sender address blocked', expected: 'blocked', source: MIMECAST },
  { who: 'Proofpoint, reputation block', reply: '554 5.7.0 Blocked - see https://ipcheck.proofpoint.com/?ip=203.0.113.7', expected: 'blocked', source: 'https://ipcheck.proofpoint.com/' },
  { who: 'Barracuda, user unknown', reply: '550 cuda_nsu 5.1.1 <email@example.com> Recipient address rejected: User unknown', expected: 'no_mailbox', source: SMTP_550 },
  { who: 'Barracuda, no such user', reply: '550 No such user (email@example.com)', expected: 'no_mailbox', source: SMTP_550 },
  { who: 'Barracuda, blocked', reply: '550 Blocked', expected: 'blocked', source: SMTP_550 },
  { who: 'AT&T, addressee unknown under 5.2.1', reply: '550 5.2.1 <EXAMPLE@PRODIGY.NET>... Addressee unknown, relay=[203.0.113.7]', expected: 'no_mailbox', source: SMTP_550 },
  { who: 'AT&T, reverse DNS', reply: '550 5.7.1 Connections not accepted from servers without a valid sender domain. ## Fix reverse DNS for 203.0.113.7', expected: 'blocked', source: SMTP_550 },

  // Orange / La Poste (bilingual French/English replies)
  { who: 'Orange, mailbox full under 552 5.1.1', reply: '552 5.1.1 Boite du destinataire pleine. Recipient overquota. OFR_417 [417]', expected: 'full', source: ORANGE },
  { who: 'Orange, invalid recipient', reply: '550 5.1.1 Adresse d au moins un destinataire invalide. Invalid recipient. OFR_416 [416]', expected: 'no_mailbox', source: ORANGE },
  { who: 'La Poste, archived recipient', reply: '550 5.5.0 Boite du destinataire archivee. Archived recipient. LPN007_420', expected: 'disabled', source: ORANGE },
  { who: 'La Poste, recipient account locked', reply: '550 5.5.0 Le compte du destinataire est bloque. The recipient account isblocked. LPN007_426', expected: 'disabled', source: ORANGE },
  { who: 'Orange, too many connections', reply: '421 mwinf5c79 ME Trop de connexions, veuillez verifier votre configuration. Too many connections, slow down. OFR005_104 [104]', expected: 'throttled', source: ORANGE },
  { who: 'Orange, IP blocked for spam', reply: '550 mwinf5c04 ME Adresse IP source bloquee pour incident de spam. Client host blocked for spamming issues. OFR006_102', expected: 'blocked', source: ORANGE },
  { who: 'Orange, invalid sender', reply: '501 5.1.0 Emetteur invalide. Invalid Sender. OFR004_405 [405]', expected: 'blocked', source: ORANGE },

  // German host (bytecamp.net)
  { who: 'bytecamp, quota (German)', reply: '422 4.2.2 Quota limit exceeded (Speicherplatz des Kontos ueberschritten)', expected: 'full', source: BYTECAMP },
  { who: 'bytecamp, greylisting', reply: '450 4.2.0 Recipient address rejected: Greylisted', expected: 'greylisted', source: BYTECAMP },
  { who: 'bytecamp, too many connections', reply: '421 4.7.0 Error: too many connections from 203.0.113.7', expected: 'throttled', source: BYTECAMP },
  { who: 'bytecamp, no reverse hostname', reply: '450 4.7.1 Client host rejected: cannot find your reverse hostname', expected: 'blocked', source: BYTECAMP },

  // Postfix
  { who: 'Postfix, local recipient table', reply: '550 5.1.1 <nobody@example.com>: Recipient address rejected: User unknown in local recipient table', expected: 'no_mailbox', source: 'https://www.postfix.org/LOCAL_RECIPIENT_README.html' },
  { who: 'Postfix, virtual mailbox table', reply: '550 5.1.1 <nobody@example.com>: Recipient address rejected: User unknown in virtual mailbox table', expected: 'no_mailbox', source: 'https://www.postfix.org/VIRTUAL_README.html' },
  { who: 'Postfix, recipient rate limit', reply: '450 4.7.1 Error: too many recipients from 203.0.113.7', expected: 'throttled', source: POSTFIX_SMTPD },
  { who: 'Postfix, message rate limit', reply: '450 4.7.1 Error: too much mail from 203.0.113.7', expected: 'throttled', source: POSTFIX_LIST },
  { who: 'Postfix, recipient limit', reply: '452 4.5.3 Error: too many recipients', expected: 'throttled', source: POSTFIX_SMTPD },
  { who: 'Postfix, hard error limit', reply: '421 4.7.0 mx.example.com Error: too many errors', expected: 'throttled', source: POSTFIX_LIST },
  { who: 'Postfix, relay denied', reply: '554 5.7.1 <a@example.org>: Relay access denied', expected: 'blocked', source: POSTFIX_LIST },
  {
    who: 'Postfix, Spamhaus RBL',
    reply: '554 5.7.1 Service unavailable; Client host [203.0.113.7] blocked using zen.spamhaus.org; https://www.spamhaus.org/query/ip/203.0.113.7',
    expected: 'blocked',
    source: 'https://www.postfix.org/postconf.5.html#reject_rbl_client',
  },
  { who: 'Postfix, access map reject', reply: '554 5.7.1 <anyone@reject.example>: Recipient address rejected: Access denied', expected: 'blocked', source: POSTFIX_LIST },
  { who: 'Postfix, temporary lookup failure', reply: '451 4.3.0 <a@example.com>: Temporary lookup failure', expected: 'temporary', source: POSTFIX_LIST },
  { who: 'Postfix, recipient domain not found', reply: '450 4.1.2 <rname@nxdomain.example>: Recipient address rejected: Domain not found', expected: 'temporary', source: POSTFIX_LIST },
  { who: 'Postfix, sender domain not found', reply: '450 4.1.8 <sname@nxdomain.example>: Sender address rejected: Domain not found', expected: 'blocked', source: POSTFIX_LIST },
  { who: 'Postfix, system storage', reply: '452 4.3.1 Insufficient system storage', expected: 'temporary', source: POSTFIX_LIST },
  { who: 'Postfix, bad address syntax', reply: '501 5.1.3 Bad recipient address syntax', expected: 'no_mailbox', source: POSTFIX_SMTPD },
  { who: 'Postfix + postgrey', reply: '450 4.2.0 <a@example.com>: Recipient address rejected: Greylisted, see http://postgrey.schweikert.ch/help/example.com.html', expected: 'greylisted', source: 'https://postgrey.schweikert.ch/' },

  // Exim, Sendmail, qmail and others
  { who: 'Exim, unrouteable address (seen by Proton Mail)', reply: '550 Unrouteable address', expected: 'no_mailbox', source: 'https://pastebin.com/A1AssNjw' },
  { who: 'Exim, connection limit', reply: '421 mx.example.com: Too many concurrent SMTP connections; please try again later', expected: 'throttled', source: EXIM_SMTP_IN },
  { who: 'Exim, too many nonmail commands (5xx)', reply: '554 Too many nonmail commands', expected: 'throttled', source: EXIM_SMTP_IN },
  { who: 'Exim, recipients_max', reply: '452 too many recipients', expected: 'throttled', source: 'https://pastebin.com/nFCs0wG9' },
  { who: 'Sendmail, user unknown', reply: '550 5.1.1 <contact@example.com>... User unknown', expected: 'no_mailbox', source: 'https://pastebin.com/PZbqz13j' },
  { who: 'qmail, no mailbox', reply: '550 sorry, no mailbox here by that name. (#5.1.1)', expected: 'no_mailbox', source: 'https://cr.yp.to/qmail.html (qmail-local)' },
  { who: 'qmail, not a relay for the domain', reply: "553 sorry, that domain isn't in my list of allowed rcpthosts (#5.7.1)", expected: 'blocked', source: 'https://cr.yp.to/qmail.html (qmail-smtpd)' },
  {
    who: 'Haraka forwarding an unknown user',
    reply: '550 5.1.1 <doesntexist@test.local>: Recipient address rejected: undeliverable address: host 192.0.2.131[192.0.2.131] said: 550 sorry, no mailbox here by that name (in reply to RCPT TO command)',
    expected: 'no_mailbox',
    source: 'https://pastebin.com/45SNf1Ec',
  },
  { who: 'GoDaddy, address rejected', reply: '550 #5.1.0 Address rejected mail@example.co.uk', expected: 'no_mailbox', source: 'https://pastebin.com/TuTFHMDq' },
  {
    who: 'GoDaddy, placeholder recipient',
    reply: '550 5.1.1 <recipient@example.com> recipient rejected. This is a default recipient used as a placeholder in many web applications. Please check your settings and try again.',
    expected: 'no_mailbox',
    source: 'https://pastebin.com/RJeh1Bwk',
  },
  { who: 'zenbox.pl, quota under 554 5.7.1', reply: '554 5.7.1 <user@example.pl>: Recipient address rejected: Quota exceeded', expected: 'full', source: 'https://pastebin.com/HJQ7Mvep' },
  { who: 'Spambrella, marked invalid under 5.7.1 (policy, not proof)', reply: '550 5.7.1 : Recipient address rejected: User email address is marked as invalid', expected: 'blocked', source: 'https://www.spambrella.com/faq/email-delivery-error-codes/' },
  { who: 'Unnamed MTA, access rejected', reply: '550 #5.7.1 Your access to submit messages to this e-mail system has been rejected.', expected: 'rejected_unclassified', source: 'https://pastebin.com/jhdNMiyp' },
  {
    who: '1&1 IONOS, quota',
    reply: '552-Requested mail action aborted: exceeded storage allocation\r\n552-Quota exceeded.\r\n552 For explanation visit https://help.1and1.com/smtp-error-messages?ip=203.0.113.7&c=quot',
    expected: 'full',
    source: 'https://pastebin.com/6Hv5w6Xi',
  },
  { who: 'Juno, quota', reply: '552 <JDOE@JUNO.COM>... Mail quota exceeded', expected: 'full', source: 'http://www.chilipepperweb.net/email-support/mail-quota-exceeded.html' },
  { who: 'Hotmail (classic), storage allocation', reply: '552 Requested mail action aborted: exceeded storage allocation', expected: 'full', source: 'http://www.chilipepperweb.net/email-support/mail-quota-exceeded.html' },
  { who: 'RU-CENTER (nic.ru), domain disk quota', reply: '451 example.ru prohibited. Disk quota exceeded', expected: 'full', source: 'https://nic.ru/help/mail-diagnostics-and-troubleshooting_14426.html' },

  // RFC 5321 / RFC 3463 codes alone
  { who: 'RFC 5321 452 text', reply: '452 Requested action not taken: insufficient system storage', expected: 'temporary', source: 'https://www.rfc-editor.org/rfc/rfc5321#section-4.2.2' },
  { who: 'RFC 3463 X.1.1 alone', reply: '550 5.1.1', expected: 'no_mailbox', source: `${RFC3463}#section-3.2` },
  { who: 'RFC 3463 X.1.6 alone', reply: '550 5.1.6', expected: 'no_mailbox', source: `${RFC3463}#section-3.2` },
  { who: 'RFC 3463 X.1.8 alone', reply: '553 5.1.8', expected: 'blocked', source: `${RFC3463}#section-3.2` },
  { who: 'RFC 3463 X.2.1 alone', reply: '550 5.2.1', expected: 'disabled', source: `${RFC3463}#section-3.3` },
  { who: 'RFC 3463 X.2.2 alone', reply: '552 5.2.2', expected: 'full', source: `${RFC3463}#section-3.3` },
  { who: 'RFC 3463 X.5.3 alone', reply: '452 4.5.3', expected: 'throttled', source: `${RFC3463}#section-3.6` },
  { who: 'RFC 3463 X.7.1 alone', reply: '554 5.7.1', expected: 'blocked', source: `${RFC3463}#section-3.8` },
  { who: 'RFC 3463 4.7.1 alone', reply: '450 4.7.1', expected: 'throttled', source: `${RFC3463}#section-3.8` },
  { who: 'RFC 3463 4.4.1 with text', reply: '451 4.4.1 No answer from host', expected: 'temporary', source: `${RFC3463}#section-3.5` },
  { who: 'Bare 550', reply: '550 Rejected', expected: 'rejected_unclassified', source: 'https://www.rfc-editor.org/rfc/rfc5321#section-4.2.2' },

  // The mail world's own replies (src/mailworld), so simulated hosts mean what real ones do
  { who: 'mail world, greylisting', reply: '450 4.7.1 Greylisted, try again later', expected: 'greylisted', source: MAILWORLD },
  { who: 'mail world, full', reply: '452 4.2.2 mailbox full', expected: 'full', source: MAILWORLD },
  { who: 'mail world, disabled', reply: '550 5.2.1 mailbox disabled', expected: 'disabled', source: MAILWORLD },
  { who: 'mail world, Spamhaus at RCPT', reply: '554 5.7.1 Spamhaus block at RCPT', expected: 'blocked', source: MAILWORLD },
  // OpenSMTPD 6.8, a virtual table that does not know the user (measured on the test bed)
  { who: 'OpenSMTPD, unknown user of a virtual table', reply: '524 5.2.4 Mailing list expansion problem: <nobody@example.com>', expected: 'no_mailbox', source: 'https://github.com/OpenSMTPD/OpenSMTPD/blob/master/usr.sbin/smtpd/smtp_session.c' },
  { who: 'OpenSMTPD, unknown user of a recipient table', reply: '550 Invalid recipient: <nobody@example.com>', expected: 'no_mailbox', source: 'https://github.com/OpenSMTPD/OpenSMTPD/blob/master/usr.sbin/smtpd/smtp_session.c' },
  // Haraka's limit plugin (measured on the test bed, Haraka 3.3.4 with haraka-plugin-limit)
  { who: 'Haraka limit, recipients per connection', reply: '450 Too many recipient attempts', expected: 'throttled', source: 'https://github.com/haraka/haraka-plugin-limit' },
  { who: 'Haraka limit, connections per client', reply: '421 Too many concurrent connections', expected: 'throttled', source: 'https://github.com/haraka/haraka-plugin-limit' },
  // Web.de / GMX (German, bilingual)
  { who: 'Web.de, over storage (German)', reply: '550 Benutzer hat das Speichervolumen ueberschritten. / User has exhausted allowed storage space.', expected: 'full', source: SITEPACKAGE },
  { who: 'Web.de, unknown user (German)', reply: '550 Benutzer nicht bekannt/User unknown', expected: 'no_mailbox', source: SITEPACKAGE },
  { who: 'T-Online, over storage quota', reply: '552 5.2.2 Over STORAGE quota', expected: 'full', source: SITEPACKAGE },
];

/**
 * Over-quota wording in the languages providers answer in, each as the provider wrote it (the
 * reply framed with a bare code so the words alone decide). Spanish, Italian and Russian:
 * no provider reply was found; the words are the common ones for "mailbox full" and are
 * marked so.
 */
export const QUOTA_WORDINGS: ReadonlyArray<{ language: string; wording: string; source: string }> = [
  { language: 'German', wording: 'Speicherplatz des Kontos ueberschritten', source: BYTECAMP },
  { language: 'German', wording: 'Benutzer hat das Speichervolumen ueberschritten.', source: SITEPACKAGE },
  { language: 'French', wording: 'Boite du destinataire pleine.', source: ORANGE },
  { language: 'Japanese', wording: '受信者の受信トレイの保存容量が不足している。', source: 'https://knowledge.workspace.google.com/admin/support/troubleshooting/gmail-smtp-errors-and-codes?hl=ja' },
  { language: 'Portuguese', wording: 'caixa de correio cheia', source: 'https://learn.microsoft.com/pt-br/exchange/client-developer/web-service-reference/mailtipsrequested' },
  { language: 'Spanish', wording: 'buzón lleno', source: 'vocabulary only: no provider reply found' },
  { language: 'Italian', wording: 'casella di posta piena', source: 'vocabulary only: no provider reply found' },
  { language: 'Russian', wording: 'почтовый ящик переполнен', source: 'vocabulary only: no provider reply found' },
];

/**
 * "No such mailbox" in the languages large providers answer in. Each wording alone, after a bare
 * 550, must read as `no_mailbox`. Where no provider reply in a language was found, the words
 * are the vocabulary of that language's usual bounce texts, marked so.
 */
export const NO_MAILBOX_WORDINGS: ReadonlyArray<{ language: string; wording: string; source: string }> = [
  { language: 'German', wording: 'Benutzer nicht bekannt', source: SITEPACKAGE },
  { language: 'German', wording: 'Empfänger unbekannt', source: 'vocabulary only: no provider reply found' },
  { language: 'French', wording: "L'adresse de courrier à laquelle vous avez envoyé votre message n'existe pas ou est introuvable", source: MS_FR_5110 },
  { language: 'French', wording: 'destinataire inconnu', source: 'vocabulary only: no provider reply found' },
  { language: 'Spanish', wording: 'usuario desconocido', source: 'vocabulary only: no provider reply found' },
  { language: 'Spanish', wording: 'el destinatario no existe', source: 'vocabulary only: no provider reply found' },
  { language: 'Italian', wording: 'utente sconosciuto', source: 'vocabulary only: no provider reply found' },
  { language: 'Italian', wording: 'indirizzo inesistente', source: 'vocabulary only: no provider reply found' },
  { language: 'Portuguese', wording: 'usuário desconhecido', source: 'vocabulary only: no provider reply found' },
  { language: 'Portuguese', wording: 'destinatário não existe', source: 'vocabulary only: no provider reply found' },
  { language: 'Russian', wording: 'пользователь не найден', source: 'vocabulary only: no provider reply found' },
  { language: 'Russian', wording: 'нет такого пользователя', source: 'vocabulary only: no provider reply found' },
  { language: 'Japanese', wording: '宛先のユーザーは存在しません', source: 'vocabulary only: no provider reply found' },
];
