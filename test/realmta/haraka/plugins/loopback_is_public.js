'use strict'
// The test bed's clients all come from 127.0.0.1. Haraka marks a loopback or private address
// as `is_private`, and karma (should_we_skip) and limit leave private clients alone. A real MX
// meets the prober from a public address: this plugin, listed first, says so for loopback.
exports.hook_connect_init = function (next, connection) {
  connection.remote.is_private = false
  connection.remote.is_local = false
  next()
}
