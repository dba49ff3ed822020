#!/usr/bin/env bash
# The browser tests drive Debian's Chromium through playwright-core, which downloads no browser.
# Installs it when it is missing and this user may (root, or sudo without a password); otherwise
# says how, and fails: a test run without its browser tests is not a passing run.
set -euo pipefail
for candidate in "${SM_CHROMIUM:-}" /usr/lib/chromium/chromium /usr/bin/chromium /usr/bin/chromium-browser; do
  if [ -n "$candidate" ] && [ -x "$candidate" ]; then exit 0; fi
done
if [ "$(id -u)" -eq 0 ]; then sudo=""; elif sudo -n true 2>/dev/null; then sudo="sudo -n"; else
  echo "The browser tests need Chromium: install Debian's package (sudo apt-get install chromium) or set SM_CHROMIUM to a Chromium binary." >&2
  exit 1
fi
echo "Installing Debian's chromium for the browser tests..." >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get install -y -qq --no-install-recommends chromium >/dev/null 2>&1 ||
  { $sudo apt-get update -qq && $sudo apt-get install -y -qq --no-install-recommends chromium >/dev/null; }
