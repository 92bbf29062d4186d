/**
 * The wordings the reply table (replies/table.ts) reads, one pattern per meaning. Each
 * alternative is there because a documented reply uses it; the replies themselves, with their
 * sources, are the table's tests (test/core/documented-replies.ts) and docs/reply-table.md.
 *
 * Hand-written: the bounce classifiers that exist (sisimai in Perl/Ruby/Go, and the ESPs' own)
 * classify whole bounce messages after delivery, not one RCPT reply, and none is an npm package.
 */

/**
 * Throttling: the server limits the prober's rate, connections, recipients or errors. Says
 * nothing about the mailbox; ask again later, in a new session, more slowly.
 */
export const THROTTLE_TEXT = new RegExp(
  [
    // Postfix/Exim/Sendmail limits: "too many recipients|errors|connections", "too much mail"; Haraka limit "Too many recipient attempts"
    String.raw`too many (?:recipients|recipient attempts|connections|concurrent|errors|messages|sessions|smtp sessions|nonmail commands|commands|invalid recipients|unknown recipients|bad recipients)`,
    String.raw`too much mail`,
    String.raw`\brate[- ]?limit`,
    String.raw`ratelimit`,
    // Yahoo TSS04 "unexpected volume", iCloud "deferred due to excessive volume", Yahoo VS1 "Excessive unknown recipients"
    String.raw`unexpected volume`,
    String.raw`excessive (?:volume|unknown recipients|recipients)`,
    String.raw`deferred due to user complaints`,
    // Microsoft 451 4.7.500 "Server busy", Yahoo "Resources temporarily unavailable" (servers busy)
    String.raw`server (?:is )?(?:too )?busy`,
    String.raw`servers? (?:are|were) (?:temporarily )?(?:too )?busy`,
    String.raw`resources temporarily (?:unavailable|not available)`,
    // Gmail 450 4.2.1 "Peak SMTP relay limit exceeded", 452 4.5.3 "…per transaction exceeded, please try this recipient in a separate transaction",
    // 451 4.3.0 "Multiple destination domains per transaction is unsupported"
    String.raw`relay limit exceeded`,
    String.raw`separate transaction`,
    String.raw`multiple destination domains per transaction`,
    String.raw`concurrent connections`,
    String.raw`connection rate`,
    // Limits of the sender's own volume: "sending limit exceeded", "daily sending quota" — never the recipient's quota
    String.raw`sending (?:rate|limit|quota)`,
    String.raw`submission quota`,
    String.raw`daily (?:message |sending )?quota`,
    String.raw`slow down`,
    // Orange (bilingual): "Trop de connexions, veuillez verifier votre configuration"
    String.raw`trop de connexions`,
  ].join('|'),
  'i',
);

/**
 * One mailbox receives mail faster than its provider lets it: about that recipient, not the
 * client (Gmail 450 4.2.1 / 550 5.2.1 "The user you are trying to contact is receiving mail at a
 * rate that prevents additional messages from being delivered", Yahoo "User is receiving mail
 * too quickly", Microsoft 432 4.3.2 "recipient thread limit exceeded": the recipient's mailbox
 * takes too many messages at once). That address is asked again later; the host is not slowed.
 */
export const RECIPIENT_RATE_TEXT = /receiving (?:e-?mail|mail) (?:at a rate|too quickly)|recipient thread limit/i;

/** Greylisting by name (postgrey, milter-greylist, Exim/rspamd setups): retry after the delay. */
export const GREYLIST_TEXT =
  /gr[ae]y-?list|postgrey|not yet authori[sz]ed|come back later|try (?:again )?in \d+ ?(?:s\b|sec|seconds|min|minutes)/i;

/**
 * About the prober, not the mailbox: block lists, reputation, relay refusals, content or
 * authentication policy (RFC 3463 §3.8 X.7.x in words).
 */
export const BLOCK_TEXT = new RegExp(
  [
    String.raw`spamhaus|spamcop|sorbs|barracudacentral|barracuda reputation|senderscore|cloudmark|ipcheck\.proofpoint|dnsbl-lookup`,
    String.raw`blocked using|\bblock(?:ed|list|listed)?\b|black ?list(?:ed)?|deny ?list|\blisted (?:in|on|at|by)\b|\b(?:is|are|was|been) listed\b|\bRBL\b|DNSBL`,
    String.raw`reputation|policy|\bbanned\b|administrative prohibition|envelope (?:blocked|rejected)`,
    String.raw`relay(?:ing)? (?:access )?(?:denied|not permitted|prohibited)|not permitted to relay|unable to relay|access denied`,
    String.raw`client host (?:\S+ )?rejected|cannot find your (?:reverse )?hostname|reverse (?:dns|hostname)|PTR record`,
    String.raw`\bspam\b|unsolicited|virus|malware|phish`,
    String.raw`DMARC|\bSPF\b|DKIM|authentication (?:required|failed)`,
    String.raw`rejected by destination domain`,
    // Orange (bilingual): "Service refuse. Veuillez essayer plus tard", "Adresse IP source bloquee"
    String.raw`service refus[eé]|bloqu[eé]e pour`,
  ].join('|'),
  'i',
);

/** The receiving system's own storage (RFC 5321 §4.2.2 452, RFC 3463 X.3.1): not the mailbox. */
export const SYSTEM_STORAGE_TEXT = /insufficient system (?:storage|resources)|system storage|mail system full/i;

/**
 * A full mailbox, in the languages providers answer in. Sources per wording in
 * docs/reply-table.md; where no provider reply in a language was found, the words are those
 * of the providers' localised documentation (marked so in the tests).
 */
export const QUOTA_TEXT = new RegExp(
  [
    // English: "over quota", "Quota exceeded", "Mailbox full", "has a full mailbox", "exceeded storage allocation",
    // "out of storage space", "Mailbox size limit exceeded", "overquota"
    String.raw`quota|over ?quota|mailbox (?:is )?full|full mailbox|mailbox size limit|mailfolder is full`,
    String.raw`exceeded (?:its |the )?storage|out of storage|storage (?:full|limit)|insufficient (?:disk )?space|not enough (?:disk )?space`,
    // German: "Postfach voll", "Speicherplatz des Kontos überschritten", "Kontingent überschritten",
    // Web.de "Benutzer hat das Speichervolumen ueberschritten"
    String.raw`postfach (?:des empf(?:ä|ae)ngers )?(?:ist )?voll|mailbox (?:ist )?voll|speicherplatz|speichervolumen|kontingent (?:\S+ )?(?:überschritten|ueberschritten)`,
    // French: Orange "Boite du destinataire pleine", "boîte aux lettres pleine", "quota dépassé"
    String.raw`bo[iî]te (?:du destinataire |aux lettres |de r[eé]ception )?(?:est )?pleine|espace (?:de stockage )?insuffisant`,
    // Spanish: "buzón lleno", "buzón del destinatario está lleno", "cuota excedida"
    String.raw`buz[oó]n (?:de correo |del destinatario )?(?:est[aá] )?lleno|cuota (?:excedida|superada)`,
    // Italian: "casella piena", "cassetta postale piena", "spazio esaurito"
    String.raw`casella (?:di posta |postale )?(?:[eè]'? )?piena|cassetta postale (?:del destinatario )?(?:[eè]'? )?piena|spazio (?:esaurito|insufficiente)`,
    // Portuguese: "caixa de correio cheia", "caixa postal cheia", "cota excedida"
    String.raw`caixa (?:postal |de correio |de entrada )?(?:est[aá] )?cheia|cota (?:excedida|esgotada)`,
    // Russian: "ящик переполнен", "превышен размер ящика", "квота"
    String.raw`переполнен|превышен\S* (?:квот|лимит|размер)|квот[аыу]|недостаточно места`,
    // Japanese (Gmail's 4.2.2 in Japanese: 受信者の受信トレイの保存容量が不足), Chinese
    String.raw`容量(?:が|を)?(?:不足|超過|オーバー|いっぱい)|メールボックスが(?:いっぱい|一杯|満杯)|邮箱(?:已满|空间不足)|容量已满|超出配额`,
  ].join('|'),
  'iu',
);

/** A mailbox that exists (or existed) and takes no mail: disabled, suspended, archived, inactive. */
export const DISABLED_TEXT =
  /disabled|deactivated|inactive|suspended|account (?:has been )?(?:closed|expired|locked|frozen|terminated|discontinued)|discontinued|no longer (?:active|available|in use)|archived recipient|destinataire archiv[eé]e/i;

/** No such mailbox, in the usual MTA and provider wordings. */
export const NO_MAILBOX_TEXT = new RegExp(
  [
    String.raw`user unknown|unknown user|addressee unknown|no such (?:user|mailbox|recipient|address|account|person)`,
    String.raw`does ?n[o']t exist|not exist|mailbox (?:unavailable|not found|does not exist|is unavailable)|no mailbox`,
    String.raw`recipient not found|user not found|invalid (?:recipient|mailbox|address|user)|not a valid (?:mailbox|recipient|user)`,
    String.raw`unrouteable address|unroutable address|unknown (?:recipient|mailbox|address|local[- ]part)`,
    // Postfix prefixes every RCPT restriction with "Recipient address rejected:"; only the reason after it counts.
    String.raw`(?<!sender )address (?:not found|unknown)|(?<![a-z] )address rejected(?!:)`,
    String.raw`account (?:does not|doesn't) exist|doesn't have an? \S+ account|undeliverable address|unknown or illegal alias|bad recipient`,
    // German: Web.de "Benutzer nicht bekannt", "Empfänger unbekannt", "existiert nicht"
    String.raw`(?:benutzer|empf(?:ä|ae)nger|adresse|postfach) (?:ist )?(?:nicht bekannt|unbekannt)|unbekannter (?:benutzer|empf(?:ä|ae)nger)|existiert nicht`,
    // French: Microsoft "n'existe pas ou est introuvable", "destinataire inconnu", "utilisateur inconnu"
    String.raw`n['’]existe pas|(?:destinataire|utilisateur|adresse) (?:\S+ )?(?:inconnue?|introuvable)|bo[iî]te aux lettres introuvable`,
    // Spanish: "usuario desconocido", "el destinatario no existe", "buzón inexistente"
    String.raw`(?:usuario|destinatario|direcci[oó]n|buz[oó]n) (?:\S+ )?(?:desconocido|inexistente|no existe)`,
    // Italian: "utente sconosciuto", "destinatario inesistente", "casella inesistente"
    String.raw`(?:utente|destinatario|indirizzo|casella) (?:\S+ )?(?:sconosciut[oa]|inesistente|non esiste)`,
    // Portuguese: "usuário desconhecido", "utilizador desconhecido", "destinatário inexistente"
    String.raw`(?:usu[aá]rio|utilizador|destinat[aá]rio|endere[cç]o|caixa postal) (?:\S+ )?(?:desconhecido|inexistente|n[aã]o existe)`,
    // Russian: "пользователь не найден", "нет такого пользователя", "адрес не существует", "получатель неизвестен"
    String.raw`(?:пользовател\S*|получател\S*|адрес\S*|ящик\S*) (?:\S+ )?(?:не найден|не существует|неизвест)|нет такого (?:пользователя|адреса|ящика|получателя)`,
    // Japanese: "宛先のユーザーは存在しません", "該当するユーザーがいません", "宛先不明"
    String.raw`(?:ユーザー?|アカウント|メールアドレス|宛先)(?:は|が)?(?:存在しません|見つかりません)|宛先不明|該当する(?:ユーザー?|アカウント)(?:は|が)(?:いません|ありません)`,
  ].join('|'),
  'iu',
);

/** The receiving server in trouble (lookups, configuration): a plain temporary failure. */
export const SERVER_TROUBLE_TEXT = /temporary (?:server|system|local) (?:error|problem|failure)|temporary lookup (?:failure|error)|internal server error|server configuration (?:error|problem)/i;
