#!/usr/bin/env bash
# Install what the browser tests of the web console and the demo's screenshots need: Debian's
# chromium and chromium-driver (selenium drives them; no browser is downloaded at run time).
#   tools/install_browser.sh            install them if missing and possible (root, apt-get);
#                                       otherwise say how, and exit 0
#   tools/install_browser.sh --require  the same, but exit 1 if they are still missing (CI)
set -euo pipefail

INSTALL_COMMAND='apt-get update && apt-get install -y chromium chromium-driver'

have_browser() {
  command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1
}

log() { printf 'setup: %s\n' "$*" >&2; }

if ! have_browser; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    log 'installing chromium and chromium-driver with apt-get (browser tests, demo screenshots)'
    export DEBIAN_FRONTEND=noninteractive
    install_log="${TMPDIR:-/tmp}/robot_sm-install-browser.log"
    if ! { apt-get update -qq && apt-get install -y -qq chromium chromium-driver; } \
        > "$install_log" 2>&1; then
      tail -5 "$install_log" >&2
      log "apt-get could not install chromium (whole output: $install_log)"
    fi
  else
    log "no chromium here: the browser tests will skip; install it with: sudo sh -c '$INSTALL_COMMAND'"
  fi
fi

if [ "${1:-}" = --require ] && ! have_browser; then
  log "chromium and chromedriver are required here: $INSTALL_COMMAND"
  exit 1
fi
exit 0
