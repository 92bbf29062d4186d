#!/usr/bin/env bash
# Installs the real-MTA test bed (test/realmta/README.md), idempotently; .ci/run calls it.
# - Postfix: Debian's package, installed normally, its own service never started.
# - Exim 4.96 and OpenSMTPD 6.8: Debian declares both in conflict with postfix (each provides
#   mail-transport-agent), so their .debs are fetched with `apt-get download` and unpacked with
#   `dpkg -x` under $PRESEND_REALMTA_ROOT (default /var/cache/presend-realmta), with any
#   library the machine lacks; nothing of them is installed as a package, nothing runs.
# - Haraka 3.3: npm, in its own folder (test/realmta/haraka, own package.json and lockfile),
#   with Debian's redis-server for its karma and limit plugins.
# - The system users the three daemons switch to (Debian's maintainer scripts would create them).
set -euo pipefail
cd "$(dirname "$0")"
ROOT="${PRESEND_REALMTA_ROOT:-/var/cache/presend-realmta}"
updated=""
apt_update() { if [ -z "$updated" ]; then apt-get update -qq; updated=1; fi; }

# Debian packages installed normally, whose own services must not start: invoke-rc.d is refused
# by a policy-rc.d that exits 101 for the length of the install; postfix's debconf is told
# "No configuration" (no main.cf, nothing to run). redis-server backs Haraka's karma and limit
# (the bed runs a private one per Haraka).
missing=()
[ -x /usr/sbin/postfix ] || missing+=(postfix)
[ -x /usr/bin/redis-server ] || missing+=(redis-server)
if [ ${#missing[@]} -gt 0 ]; then
  policy_added=""
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d && policy_added=1
  fi
  echo "postfix postfix/main_mailer_type select No configuration" | debconf-set-selections || true
  apt_update
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  if [ -n "$policy_added" ]; then rm -f /usr/sbin/policy-rc.d; fi
fi

# Packages unpacked under $ROOT: the two daemons, then the libraries they link that are not installed.
unpack() {
  local wanted=()
  for pkg in "$@"; do [ -e "$ROOT/.unpacked/$pkg" ] || wanted+=("$pkg"); done
  [ ${#wanted[@]} -eq 0 ] && return 0
  mkdir -p "$ROOT/debs" "$ROOT/.unpacked"
  # apt-get download writes into the current directory as the _apt user when it can.
  chmod 777 "$ROOT/debs"
  apt_update
  (cd "$ROOT/debs" && apt-get download -qq "${wanted[@]}")
  for pkg in "${wanted[@]}"; do
    dpkg -x "$(ls "$ROOT/debs/${pkg}"_*.deb | head -n 1)" "$ROOT"
    touch "$ROOT/.unpacked/$pkg"
  done
}
libraries=()
for lib in libidn12 libevent-2.1-7 libgnutls-dane0 libgnutls30 libnsl2 libpcre2-8-0 libdb5.3 libidn2-0 libssl3 libpam0g; do
  dpkg-query -W -f='${Status}' "$lib" 2>/dev/null | grep -q 'ok installed' || libraries+=("$lib")
done
unpack exim4-base exim4-daemon-light opensmtpd "${libraries[@]}"

getent passwd Debian-exim >/dev/null || adduser --system --group --quiet --home /var/spool/exim4 --no-create-home --disabled-login --force-badname Debian-exim
for name in opensmtpd opensmtpq; do
  getent group "$name" >/dev/null || addgroup --system --quiet "$name"
  getent passwd "$name" >/dev/null || adduser --system --quiet --home /var/lib/opensmtpd/empty --no-create-home --disabled-password --ingroup "$name" "$name"
done
# smtpd's unprivileged processes chroot there (compiled in).
mkdir -p /var/lib/opensmtpd/empty

# Haraka's own dependencies only (its optional plugins, some native, are not needed: the bed
# uses karma and limit, listed in haraka/package.json). Some of its dependencies declare
# Node >= 22; on Node 20 npm warns, and Haraka runs (its own engines field says >= 20).
if [ ! -d haraka/node_modules/Haraka ]; then
  (cd haraka && npm ci --no-audit --no-fund --omit=optional --loglevel=error)
fi
