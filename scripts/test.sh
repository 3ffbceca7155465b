#!/usr/bin/env bash
# Runs every test of seam on a fresh machine: fetches Go modules, vets, then tests with the
# race detector. Anything the tests need is installed here.
set -euo pipefail
cd "$(dirname "$0")/.."

go mod download
go vet ./...
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
	echo "gofmt would change:" $unformatted >&2
	exit 1
fi
go test -race -count=1 ./...
