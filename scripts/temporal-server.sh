#!/usr/bin/env bash
# Gives tests a real Temporal server: builds the pinned Temporal CLI with `go install` into a
# cache folder, starts its dev server (`temporal server start-dev`) on loopback with SQLite in
# a fresh temp folder, tuned for short test runs, and writes an env file that tests read.
#
#   scripts/temporal-server.sh install               build the CLI into the cache (skipped when there)
#   scripts/temporal-server.sh start [--env FILE]    install if needed, start, write FILE
#                                                    (default $TEMPORAL_FOLDER/env); prints SEAM_TEST_TEMPORAL=...
#   scripts/temporal-server.sh stop ENVFILE          stop that server and remove its temp folder
#
# The env file holds SEAM_TEST_TEMPORAL (host:port of the frontend), TEMPORAL_PID,
# TEMPORAL_LOG, TEMPORAL_FOLDER and TEMPORAL_CLI (the binary) as KEY=value lines.
#
# Environment:
#   SEAM_TEMPORAL_CACHE    install folder (default $HOME/.cache/seam/temporal-1.5.1)
#   SEAM_TEMPORAL_PORT     preferred frontend port (default: a free one)
#   SEAM_TEMPORAL_TIMEOUT  seconds to wait for the server to answer (default 120)
#
# Needs go (for the install only) and setsid.
set -euo pipefail

TEMPORAL_VERSION=1.5.1
CACHE=${SEAM_TEMPORAL_CACHE:-${HOME:-/root}/.cache/seam/temporal-$TEMPORAL_VERSION}
CLI="$CACHE/temporal"
TIMEOUT=${SEAM_TEMPORAL_TIMEOUT:-120}

# Dynamic config for tests (see docs/performance.md): one task-queue partition, so that a poll
# finds every task at once; eager workflow and activity start, which skip a round trip
# through matching when the starter or worker can take the task itself; and history's task
# queues read as often as they have work (by default 20 reads a second each, on the dev
# server's one shard: a chain of nodes then waits ~25 ms per node for its workflow task).
DYNAMIC_CONFIG=(
	matching.numTaskqueueReadPartitions=1
	matching.numTaskqueueWritePartitions=1
	system.enableEagerWorkflowStart=true
	system.enableActivityEagerExecution=true
	history.transferProcessorMaxPollRPS=10000
	history.timerProcessorMaxPollRPS=10000
	history.visibilityProcessorMaxPollRPS=10000
)

LOG_NAME=temporal-server
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# installed: whether the CLI is there and runs. (Built with go install, it calls itself
# version 0.0.0-DEV: the release sets the version at link time; the folder names the pin.)
installed() {
	[ -x "$CLI" ] && "$CLI" --version >/dev/null 2>&1
}

cmd_install() {
	on_exit cleanup
	if installed; then
		log "Temporal CLI $TEMPORAL_VERSION is installed in $CACHE"
		return 0
	fi
	need go
	need setsid "util-linux"
	mkdir -p "$CACHE"
	install_lock "$CACHE" # a second caller waits, then finds the CLI there
	if installed; then
		exec 9>&-
		log "Temporal CLI $TEMPORAL_VERSION is installed in $CACHE"
		return 0
	fi
	local start=$SECONDS
	log "building the Temporal CLI $TEMPORAL_VERSION into $CACHE with go install ($(go env GOVERSION); about 5 minutes on an idle machine, longer under load)"
	go_build "github.com/temporalio/cli/cmd/temporal@v$TEMPORAL_VERSION" temporal "$CLI"
	exec 9>&- # so that the server start runs next does not inherit and hold the lock
	installed || die "built $CLI, but '$CLI --version' fails"
	log "built the Temporal CLI $TEMPORAL_VERSION in $((SECONDS - start))s: $CLI"
}

# Set by cmd_install and cmd_start, used by cleanup.
INSTALL_PID= TMPBIN= STARTED_PID= FOLDER=
# cleanup stops a build or a server left half-done by an error or a signal.
cleanup() {
	local rc=$?
	trap - EXIT HUP INT TERM
	[ "$rc" -le 128 ] || log "interrupted (exit $rc); cleaning up"
	[ -z "$INSTALL_PID" ] || stop_group "$INSTALL_PID" "go install"
	[ -z "$TMPBIN" ] || rm -rf "$TMPBIN"
	if [ "$rc" -ne 0 ]; then
		[ -z "$STARTED_PID" ] || stop_group "$STARTED_PID" Temporal
		[ -z "$FOLDER" ] || rm -rf "$FOLDER"
	fi
	exit "$rc"
}

# answers ADDRESS: whether the frontend at ADDRESS serves and knows the namespace default
# (the dev server registers it once the frontend is up).
answers() {
	"$CLI" operator cluster health --address "$1" --command-timeout 5s >/dev/null 2>&1 &&
		"$CLI" operator namespace describe --address "$1" --namespace default --command-timeout 5s >/dev/null 2>&1
}

cmd_start() {
	on_exit cleanup
	start_args "$@"
	local env_file=$ENV_FILE
	need setsid "util-linux"
	cmd_install
	FOLDER=$(mktemp -d "${TMPDIR:-/tmp}/seam-temporal.XXXXXX")
	touch "$FOLDER/.seam-temporal"
	: "${env_file:=$FOLDER/env}"
	local logfile="$FOLDER/temporal.log"

	local dc=() kv
	for kv in "${DYNAMIC_CONFIG[@]}"; do dc+=(--dynamic-config-value "$kv"); done

	local t0=$SECONDS deadline=$((SECONDS + TIMEOUT))
	# A chosen port may be taken between the check and the start: try others then.
	local port=${SEAM_TEMPORAL_PORT:-} tries addr
	for tries in 1 2 3 4 5; do
		{ [ -n "$port" ] && port_free "$port"; } || port=$(free_port)
		addr=127.0.0.1:$port
		log "starting the Temporal dev server $TEMPORAL_VERSION on $addr, folder $FOLDER"
		# setsid: a process group of its own, which stop (and a failed start) kill. Without
		# --db-filename the state is in memory. The HTTP API and /metrics take free ports
		# of their own (the CLI cannot turn metrics off); the UI is off.
		setsid "$CLI" server start-dev \
			--ip 127.0.0.1 --port "$port" --headless --log-level warn "${dc[@]}" \
			</dev/null >"$logfile" 2>&1 &
		STARTED_PID=$!
		until answers "$addr"; do
			if ! alive "$STARTED_PID"; then
				break
			fi
			if [ "$SECONDS" -ge "$deadline" ]; then
				log_tail "$logfile"
				die "Temporal did not answer on $addr within ${TIMEOUT}s"
			fi
			sleep 0.5
		done
		alive "$STARTED_PID" && break
		STARTED_PID=
		if ! grep -q 'address already in use' "$logfile" 2>/dev/null || [ "$tries" -eq 5 ]; then
			log_tail "$logfile"
			die "the Temporal dev server exited before it answered"
		fi
		log "a port was taken; trying others"
		port=
	done

	write_env "$env_file" <<EOF
SEAM_TEST_TEMPORAL=$addr
TEMPORAL_PID=$STARTED_PID
TEMPORAL_LOG=$logfile
TEMPORAL_FOLDER=$FOLDER
TEMPORAL_CLI=$CLI
EOF
	trap - EXIT HUP INT TERM
	log "Temporal is up on $addr after $((SECONDS - t0))s; env in $env_file; stop with: $0 stop $env_file"
	echo "SEAM_TEST_TEMPORAL=$addr"
}

cmd_stop() {
	[ $# -eq 1 ] || die "usage: $0 stop ENVFILE"
	stop_server "$1" TEMPORAL_PID TEMPORAL_FOLDER .seam-temporal Temporal
}

main 12 "install start stop" "$@"
