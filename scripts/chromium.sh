#!/usr/bin/env bash
# Gives the web view's browser tests (serve/) a real headless Chromium: Debian's `chromium`
# package, installed with apt-get when missing. Prints the binary's path on stdout; the test
# script exports it as SEAM_CHROMIUM.
#
#   scripts/chromium.sh    install if needed, print the path of the chromium binary
set -euo pipefail

LOG_NAME=chromium
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# find_bin: the chromium binary, if installed.
find_bin() {
	local b
	for b in chromium chromium-browser; do
		if command -v "$b" >/dev/null 2>&1; then
			command -v "$b"
			return 0
		fi
	done
	return 1
}

if ! find_bin >/dev/null; then
	command -v apt-get >/dev/null 2>&1 || die "chromium is not installed and there is no apt-get to install it"
	[ "$(id -u)" -eq 0 ] || die "chromium is not installed; install it as root (apt-get install -y chromium)"
	log "installing Debian's chromium with apt-get"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >&2 || die "apt-get update failed"
	apt-get install -y -qq --no-install-recommends chromium fonts-noto-cjk >&2 || die "apt-get install chromium failed"
fi
find_bin || die "chromium was installed but no chromium binary is on PATH"
