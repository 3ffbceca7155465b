#!/usr/bin/env bash
# Gives tests a real OpenID provider: builds zitadel/oidc's example provider (an OP with two
# users and a login form, github.com/zitadel/oidc/v3/example/server) with `go install` into a
# cache folder, starts it on loopback, and writes an env file that tests read.
#
#   scripts/oidc-server.sh install               build the provider into the cache (skipped when there)
#   scripts/oidc-server.sh start [--env FILE]    install if needed, start, write FILE
#                                                (default $OIDC_FOLDER/env); prints SEAM_TEST_OIDC=...
#   scripts/oidc-server.sh stop ENVFILE          stop that provider and remove its temp folder
#
# The env file holds SEAM_TEST_OIDC (the issuer, http://localhost:PORT/), OIDC_PID, OIDC_LOG
# and OIDC_FOLDER as KEY=value lines. The provider knows the public client "native" (PKCE, no
# secret) whose redirect URI is http://127.0.0.1/login/oidc/callback on any port (RFC 8252),
# and the users test-user@localhost (subject id1, email test-user@zitadel.ch, verified) and
# test-user2 (subject id2), both with the password verysecure.
#
# Environment:
#   SEAM_OIDC_CACHE    install folder (default $HOME/.cache/seam/zitadel-oidc-3.52.0)
#   SEAM_OIDC_TIMEOUT  seconds to wait for the provider to answer (default 60)
#
# Needs go (for the install only), curl and setsid.
set -euo pipefail

OIDC_VERSION=3.52.0
CACHE=${SEAM_OIDC_CACHE:-${HOME:-/root}/.cache/seam/zitadel-oidc-$OIDC_VERSION}
BIN="$CACHE/oidc-example-op"
TIMEOUT=${SEAM_OIDC_TIMEOUT:-60}
REDIRECT_URI=http://127.0.0.1/login/oidc/callback

LOG_NAME=oidc-server
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cmd_install() {
	on_exit cleanup
	if [ -x "$BIN" ]; then
		log "the OpenID provider (zitadel/oidc $OIDC_VERSION) is installed in $CACHE"
		return 0
	fi
	need go
	need setsid "util-linux"
	mkdir -p "$CACHE"
	install_lock "$CACHE" # a second caller waits, then finds the provider there
	if [ -x "$BIN" ]; then
		exec 9>&-
		log "the OpenID provider (zitadel/oidc $OIDC_VERSION) is installed in $CACHE"
		return 0
	fi
	local start=$SECONDS
	log "building the OpenID provider (zitadel/oidc $OIDC_VERSION example/server) into $CACHE with go install"
	go_build "github.com/zitadel/oidc/v3/example/server@v$OIDC_VERSION" server "$BIN"
	exec 9>&-
	log "built the OpenID provider in $((SECONDS - start))s: $BIN"
}

# Set by cmd_install and cmd_start, used by cleanup.
INSTALL_PID= TMPBIN= STARTED_PID= FOLDER=
# cleanup stops a build or a provider left half-done by an error or a signal.
cleanup() {
	local rc=$?
	trap - EXIT HUP INT TERM
	[ "$rc" -le 128 ] || log "interrupted (exit $rc); cleaning up"
	[ -z "$INSTALL_PID" ] || stop_group "$INSTALL_PID" "go install"
	[ -z "$TMPBIN" ] || rm -rf "$TMPBIN"
	if [ "$rc" -ne 0 ]; then
		[ -z "$STARTED_PID" ] || stop_group "$STARTED_PID" "the OpenID provider"
		[ -z "$FOLDER" ] || rm -rf "$FOLDER"
	fi
	exit "$rc"
}

cmd_start() {
	on_exit cleanup
	start_args "$@"
	local env_file=$ENV_FILE
	need setsid "util-linux"
	need curl
	cmd_install
	FOLDER=$(mktemp -d "${TMPDIR:-/tmp}/seam-oidc.XXXXXX")
	touch "$FOLDER/.seam-oidc"
	: "${env_file:=$FOLDER/env}"
	local logfile="$FOLDER/oidc.log" t0=$SECONDS deadline=$((SECONDS + TIMEOUT)) port issuer tries
	# A port may be taken between the check and the start: try others then.
	for tries in 1 2 3 4 5; do
		port=$(free_port)
		issuer=http://localhost:$port/
		log "starting the OpenID provider on $issuer, folder $FOLDER"
		# The example provider listens on every address of PORT; its issuer names localhost.
		PORT=$port REDIRECT_URI=$REDIRECT_URI setsid "$BIN" </dev/null >"$logfile" 2>&1 &
		STARTED_PID=$!
		until curl -fsS -o /dev/null "${issuer}.well-known/openid-configuration" 2>/dev/null; do
			alive "$STARTED_PID" || break
			if [ "$SECONDS" -ge "$deadline" ]; then
				log_tail "$logfile"
				die "the OpenID provider did not answer on $issuer within ${TIMEOUT}s"
			fi
			sleep 0.2
		done
		alive "$STARTED_PID" && break
		STARTED_PID=
		if ! grep -q 'address already in use' "$logfile" 2>/dev/null || [ "$tries" -eq 5 ]; then
			log_tail "$logfile"
			die "the OpenID provider exited before it answered"
		fi
		log "a port was taken; trying others"
	done

	write_env "$env_file" <<EOF
SEAM_TEST_OIDC=$issuer
OIDC_PID=$STARTED_PID
OIDC_LOG=$logfile
OIDC_FOLDER=$FOLDER
EOF
	trap - EXIT HUP INT TERM
	log "the OpenID provider is up on $issuer after $((SECONDS - t0))s; env in $env_file; stop with: $0 stop $env_file"
	echo "SEAM_TEST_OIDC=$issuer"
}

cmd_stop() {
	[ $# -eq 1 ] || die "usage: $0 stop ENVFILE"
	stop_server "$1" OIDC_PID OIDC_FOLDER .seam-oidc "the OpenID provider"
}

main 21 "install start stop" "$@"
