'use strict'
// Recipients checked against a fixed list (config/rcpt_list, one address a line): a listed
// address is accepted (OK); any other is refused with haraka-dsn's no_such_user,
// "550 5.1.1 No such user", as Haraka's recipient plugins (qmail-deliverable, ldap…) answer.
// DATA is always refused: no message is ever taken.
//
// Each unknown recipient asked costs the client 1 karma point, the award admins give against
// dictionary attacks. Karma's own result_awards would do it from its `fail: rcpt_to` result,
// but they travel through redis pub/sub and arrive after the replies they should slow; taking
// the point here (karma is listed before this plugin, so its tarpit has already run for this
// recipient) makes the tarpit start at the very next reply.
const DSN = require('haraka-dsn')
exports.register = function () {
  this.load_list()
}

exports.load_list = function () {
  this.known = new Set(this.config.get('rcpt_list', 'list', () => this.load_list()).map((a) => a.toLowerCase()))
}

exports.hook_rcpt = function (next, connection, params) {
  const rcpt = params[0]
  const address = `${rcpt.user}@${rcpt.host}`.toLowerCase()
  if (this.known.has(address)) return next(OK)
  connection.results.incr({ name: 'karma' }, { score: -1 })
  next(DENY, DSN.no_such_user())
}

exports.hook_data = function (next) {
  next(DENY, 'no mail is taken here')
}
