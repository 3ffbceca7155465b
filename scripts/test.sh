#!/usr/bin/env bash
# Runs every test of seam on a fresh machine: fetches Go modules, vets, then tests with the
# race detector. Anything the tests need is installed here and started in the background, side
# by side, and stopped at the end:
#   - n8n (scripts/n8n-server.sh, cached in ~/.cache/seam) on loopback for the n8n integration
#     tests, which read N8N_URL and N8N_API_KEY; SEAM_SKIP_N8N=1 skips those tests;
#   - a throwaway PostgreSQL cluster (scripts/pg-server.sh) for the PostgreSQL run store tests,
#     which read SEAM_TEST_POSTGRES; SEAM_SKIP_POSTGRES=1 skips those tests;
#   - headless Chromium (scripts/chromium.sh, Debian's package) for the web view's browser
#     tests, which read SEAM_CHROMIUM; SEAM_SKIP_BROWSER=1 skips those tests;
#   - a Temporal dev server (scripts/temporal-server.sh, the CLI built with go install and
#     cached in ~/.cache/seam) on loopback for the Temporal engine tests, which read
#     SEAM_TEST_TEMPORAL and SEAM_TEMPORAL_CLI; SEAM_SKIP_TEMPORAL=1 skips those tests;
#   - a real OpenID provider (scripts/oidc-server.sh, zitadel/oidc's example provider built
#     with go install and cached in ~/.cache/seam) on loopback for the web view's single
#     sign-on tests, which read SEAM_TEST_OIDC; SEAM_SKIP_OIDC=1 skips those tests;
#   - published JSON Schema sets (scripts/schemas.sh: GitHub's webhook schemas and example
#     payloads from npm, cached in ~/.cache/seam) for the contract tests, which read
#     SEAM_TEST_SCHEMAS; without npm those tests are skipped with a message.
set -euo pipefail
cd "$(dirname "$0")/.."
LOG_NAME=test.sh
# shellcheck source=scripts/lib.sh
. scripts/lib.sh

tmp= n8n_env= n8n_start= pg_env= pg_start= chromium_start= temporal_env= temporal_start= oidc_env= oidc_start= schemas_start=
# stop_servers stops whatever was started, on every way out (exit, error, signal).
stop_servers() {
	local rc=$?
	trap - EXIT HUP INT TERM
	# A start still running stops the server it was starting itself when told to.
	local p
	for p in "$n8n_start" "$pg_start" "$chromium_start" "$temporal_start" "$oidc_start" "$schemas_start"; do
		if [ -n "$p" ] && kill -0 "$p" 2>/dev/null; then
			kill -TERM "$p" 2>/dev/null || true
			wait "$p" 2>/dev/null || true
		fi
	done
	if [ -n "$n8n_env" ] && [ -f "$n8n_env" ]; then
		scripts/n8n-server.sh stop "$n8n_env" || true
	fi
	if [ -n "$pg_env" ] && [ -f "$pg_env" ]; then
		scripts/pg-server.sh stop "$pg_env" || true
	fi
	if [ -n "$temporal_env" ] && [ -f "$temporal_env" ]; then
		scripts/temporal-server.sh stop "$temporal_env" || true
	fi
	if [ -n "$oidc_env" ] && [ -f "$oidc_env" ]; then
		scripts/oidc-server.sh stop "$oidc_env" || true
	fi
	[ -z "$tmp" ] || rm -rf "$tmp"
	exit "$rc"
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/seam-test.XXXXXX")
on_exit stop_servers
# In the background: the installs (first run only) and the starts overlap vet.
if [ "${SEAM_SKIP_N8N:-}" != 1 ]; then
	n8n_env=$tmp/n8n.env
	scripts/n8n-server.sh start --env "$n8n_env" >/dev/null &
	n8n_start=$!
fi
if [ "${SEAM_SKIP_POSTGRES:-}" != 1 ]; then
	pg_env=$tmp/pg.env
	scripts/pg-server.sh start --env "$pg_env" >/dev/null &
	pg_start=$!
fi
if [ "${SEAM_SKIP_BROWSER:-}" != 1 ]; then
	scripts/chromium.sh >"$tmp/chromium.path" &
	chromium_start=$!
fi
if [ "${SEAM_SKIP_TEMPORAL:-}" != 1 ]; then
	temporal_env=$tmp/temporal.env
	scripts/temporal-server.sh start --env "$temporal_env" >/dev/null &
	temporal_start=$!
fi
if [ "${SEAM_SKIP_OIDC:-}" != 1 ]; then
	oidc_env=$tmp/oidc.env
	scripts/oidc-server.sh start --env "$oidc_env" >/dev/null &
	oidc_start=$!
fi
if command -v npm >/dev/null 2>&1; then
	scripts/schemas.sh install >"$tmp/schemas.path" &
	schemas_start=$!
fi

go mod download
go vet ./...
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
	echo "gofmt would change:" $unformatted >&2
	exit 1
fi

if [ -n "$n8n_start" ]; then
	started n8n_start "n8n did not start (see the n8n-server lines above)" SEAM_SKIP_N8N
	export_env "$n8n_env" N8N_URL N8N_API_KEY
fi
if [ -n "$pg_start" ]; then
	started pg_start "PostgreSQL did not start (see the pg-server lines above)" SEAM_SKIP_POSTGRES
	export_env "$pg_env" SEAM_TEST_POSTGRES
fi
if [ -n "$chromium_start" ]; then
	started chromium_start "Chromium could not be installed (see the chromium lines above)" SEAM_SKIP_BROWSER
	SEAM_CHROMIUM=$(cat "$tmp/chromium.path")
	export SEAM_CHROMIUM
fi
if [ -n "$temporal_start" ]; then
	started temporal_start "Temporal did not start (see the temporal-server lines above)" SEAM_SKIP_TEMPORAL
	export_env "$temporal_env" SEAM_TEST_TEMPORAL SEAM_TEMPORAL_CLI=TEMPORAL_CLI
fi
if [ -n "$oidc_start" ]; then
	started oidc_start "the OpenID provider did not start (see the oidc-server lines above)" SEAM_SKIP_OIDC
	export_env "$oidc_env" SEAM_TEST_OIDC
fi
if [ -n "$schemas_start" ]; then
	# Optional: without the schema sets, the tests that need them say so and skip.
	if wait "$schemas_start"; then
		SEAM_TEST_SCHEMAS=$(cat "$tmp/schemas.path")
		export SEAM_TEST_SCHEMAS
	else
		log "the published schema sets could not be installed (see the schemas lines above); their tests skip"
	fi
	schemas_start=
fi
# The Temporal, PostgreSQL and n8n tests start many processes: on a loaded 2-core machine the
# cmd/seam package alone can pass go test's default 10 minutes (11 min quiet, 22 min at a load
# of 10 under -race); 50 minutes keeps the whole inside CI's 90.
go test -race -count=1 -timeout 50m ./...
