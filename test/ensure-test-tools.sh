#!/usr/bin/env bash
# What the tests drive besides Node: Debian's Chromium (the browser tests, through playwright-core,
# which downloads no browser), tmux (the interactive menu, in a real terminal), and Info-ZIP's zip
# and unzip (the baselines of the backup benchmark, which runs in its quick mode), and nats-server
# (the broker of the NATS transport's tests; Debian puts it in /usr/sbin) with openssl (their TLS
# certificates). Installs what is
# missing when this user may (root, or sudo without a password); otherwise says how, and fails:
# a test run without those tests is not a passing run.
set -euo pipefail
missing=()
chromium=no
for candidate in "${SM_CHROMIUM:-}" /usr/lib/chromium/chromium /usr/bin/chromium /usr/bin/chromium-browser; do
  if [ -n "$candidate" ] && [ -x "$candidate" ]; then chromium=yes; break; fi
done
[ "$chromium" = yes ] || missing+=(chromium)
command -v tmux >/dev/null || missing+=(tmux)
command -v zip >/dev/null || missing+=(zip)
command -v unzip >/dev/null || missing+=(unzip)
command -v openssl >/dev/null || missing+=(openssl)
nats=no
for candidate in "${SM_NATS_SERVER:-}" /usr/sbin/nats-server /usr/bin/nats-server; do
  if [ -n "$candidate" ] && [ -x "$candidate" ]; then nats=yes; break; fi
done
[ "$nats" = yes ] || missing+=(nats-server)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -eq 0 ]; then sudo=""; elif sudo -n true 2>/dev/null; then sudo="sudo -n"; else
  echo "The tests need ${missing[*]}: install Debian's packages (sudo apt-get install ${missing[*]}), or set SM_CHROMIUM to a Chromium binary and SM_NATS_SERVER to a nats-server binary." >&2
  exit 1
fi
echo "Installing ${missing[*]} for the tests..." >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null 2>&1 ||
  { $sudo apt-get update -qq && $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; }
