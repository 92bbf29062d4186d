/** The steps of an SMTP session, as failures and reply checks name them (session.ts, replies/check-order.ts). */
export type SmtpStep = 'connect' | 'banner' | 'ehlo' | 'helo' | 'starttls' | 'mail' | 'rcpt' | 'rset' | 'quit';
