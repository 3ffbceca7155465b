#!/usr/bin/env bash
# Gives the contract tests real, published schema sets: installs the npm packages pinned in
# scripts/schemas/package.json (GitHub's webhook schemas and their example payloads) into a
# cache folder, and prints that folder's node_modules on stdout; the test script exports it as
# SEAM_TEST_SCHEMAS.
#
#   scripts/schemas.sh install    install into the cache (skipped when complete), print the path
#
# Environment:
#   SEAM_SCHEMAS_CACHE  install folder (default $HOME/.cache/seam/schemas-<manifest checksum>)
#
# Needs npm.
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
MANIFEST_DIR="$SCRIPT_DIR/schemas"
LOG_NAME=schemas
# shellcheck source=scripts/lib.sh
. "$SCRIPT_DIR/lib.sh"

# The manifest's checksum names the cache folder, so that a changed pin installs afresh.
SUM=$(cat "$MANIFEST_DIR/package.json" "$MANIFEST_DIR/package-lock.json" | cksum | cut -d' ' -f1)
CACHE=${SEAM_SCHEMAS_CACHE:-${HOME:-/root}/.cache/seam/schemas-$SUM}
MARKER="$CACHE/.seam-install-complete"

cmd_install() {
	need npm
	mkdir -p "$CACHE"
	if [ ! -f "$MARKER" ] || [ "$(cat "$MARKER")" != "$SUM" ]; then
		install_lock "$CACHE" # a second caller waits, then finds the install complete
		if [ ! -f "$MARKER" ] || [ "$(cat "$MARKER")" != "$SUM" ]; then
			cp "$MANIFEST_DIR/package.json" "$MANIFEST_DIR/package-lock.json" "$CACHE/"
			log "installing $(cd "$MANIFEST_DIR" && node -p 'Object.entries(require("./package.json").dependencies).map(([n, v]) => n + "@" + v).join(" ")') into $CACHE"
			(cd "$CACHE" && npm ci --no-audit --no-fund --ignore-scripts >"$CACHE/npm-install.log" 2>&1) || {
				log_tail "$CACHE/npm-install.log"
				die "npm failed installing the schema packages into $CACHE"
			}
			echo "$SUM" >"$MARKER"
		fi
		exec 9>&-
	fi
	echo "$CACHE/node_modules"
}

main 10 "install" "$@"
