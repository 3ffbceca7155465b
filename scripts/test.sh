#!/usr/bin/env bash
# Runs every test of seam on a fresh machine: fetches Go modules, vets, then tests with the
# race detector. Anything the tests need is installed here: n8n (scripts/n8n-server.sh, cached
# in ~/.cache/seam) is installed and started on loopback for the n8n integration tests, which
# read N8N_URL and N8N_API_KEY, and stopped at the end. SEAM_SKIP_N8N=1 skips those tests.
set -euo pipefail
cd "$(dirname "$0")/.."

n8n_tmp= n8n_env= n8n_start=
stop_n8n() {
	local rc=$?
	trap - EXIT HUP INT TERM
	# A start still running stops the server it was starting itself when told to.
	if [ -n "$n8n_start" ] && kill -0 "$n8n_start" 2>/dev/null; then
		kill -TERM "$n8n_start" 2>/dev/null || true
		wait "$n8n_start" 2>/dev/null || true
	fi
	if [ -n "$n8n_env" ] && [ -f "$n8n_env" ]; then
		scripts/n8n-server.sh stop "$n8n_env" || true
	fi
	[ -z "$n8n_tmp" ] || rm -rf "$n8n_tmp"
	exit "$rc"
}

if [ "${SEAM_SKIP_N8N:-}" != 1 ]; then
	n8n_tmp=$(mktemp -d "${TMPDIR:-/tmp}/seam-test.XXXXXX")
	n8n_env=$n8n_tmp/n8n.env
	trap stop_n8n EXIT
	trap 'exit 129' HUP
	trap 'exit 130' INT
	trap 'exit 143' TERM
	# In the background: the install (first run only) and the start overlap vet.
	scripts/n8n-server.sh start --env "$n8n_env" >/dev/null &
	n8n_start=$!
fi

go mod download
go vet ./...
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
	echo "gofmt would change:" $unformatted >&2
	exit 1
fi

if [ -n "$n8n_start" ]; then
	if ! wait "$n8n_start"; then
		n8n_start=
		echo "test.sh: n8n did not start (see the n8n-server lines above); SEAM_SKIP_N8N=1 runs the tests without it" >&2
		exit 1
	fi
	n8n_start=
	N8N_URL=$(sed -n 's/^N8N_URL=//p' "$n8n_env")
	N8N_API_KEY=$(sed -n 's/^N8N_API_KEY=//p' "$n8n_env")
	export N8N_URL N8N_API_KEY
fi
go test -race -count=1 ./...
