#!/usr/bin/env bash
# Gives tests a real PostgreSQL: a throwaway cluster (initdb in a fresh temp folder) on a free
# loopback port, with a password, and an env file that tests read. PostgreSQL refuses to run
# as root, so as root the cluster belongs to the Debian `postgres` user (created when missing).
#
#   scripts/pg-server.sh install               install Debian's postgresql with apt-get (skipped when present)
#   scripts/pg-server.sh start [--env FILE]    install if needed, initdb, start, write FILE
#                                              (default $PG_FOLDER/env); prints PG_PORT=...
#   scripts/pg-server.sh restart ENVFILE       restart that server (pg_ctl restart, same port)
#   scripts/pg-server.sh down ENVFILE          stop that server, keeping its data (for tests)
#   scripts/pg-server.sh up ENVFILE            start it again after down
#   scripts/pg-server.sh stop ENVFILE          stop that server and remove its temp folder
#
# The env file holds SEAM_TEST_POSTGRES (a postgres:// DSN with the password), PG_BIN,
# PG_DATA, PG_FOLDER, PG_PORT, PG_OS_USER and PG_LOG as KEY=value lines; the script never
# prints the password.
#
# Environment:
#   SEAM_PG_PORT     preferred port (default: a free one)
#   SEAM_PG_TIMEOUT  seconds to wait for the server to start (default 60)
set -euo pipefail

TIMEOUT=${SEAM_PG_TIMEOUT:-60}
DB_USER=seam

LOG_NAME=pg-server
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# bin_dir: the folder of initdb and pg_ctl, the newest of Debian's versions first.
bin_dir() {
	local d
	for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k5 -V -r); do
		[ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && {
			echo "$d"
			return 0
		}
	done
	if command -v pg_ctl >/dev/null 2>&1 && command -v initdb >/dev/null 2>&1; then
		dirname "$(command -v pg_ctl)"
		return 0
	fi
	return 1
}

cmd_install() {
	if bin_dir >/dev/null; then
		log "PostgreSQL is installed in $(bin_dir)"
		return 0
	fi
	command -v apt-get >/dev/null 2>&1 || die "PostgreSQL is not installed and there is no apt-get to install it"
	[ "$(id -u)" -eq 0 ] || die "PostgreSQL is not installed; install it as root (apt-get install -y postgresql)"
	log "installing Debian's postgresql with apt-get"
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql >&2 ||
		{ apt-get update >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql >&2; } ||
		die "apt-get could not install postgresql"
	bin_dir >/dev/null || die "apt-get installed postgresql but no initdb/pg_ctl was found"
}

# os_user: the user the cluster runs as: this one, or `postgres` as root.
os_user() {
	if [ "$(id -u)" -ne 0 ]; then
		id -un
		return
	fi
	if ! id postgres >/dev/null 2>&1; then
		log "creating the system user postgres (PostgreSQL does not run as root)"
		useradd --system --no-create-home --shell /usr/sbin/nologin postgres >&2 ||
			die "could not create the user postgres"
	fi
	echo postgres
}

# as_user USER CMD...: runs CMD as USER (as this user when it is the same).
as_user() {
	local u=$1
	shift
	if [ "$u" = "$(id -un)" ]; then
		"$@"
	elif command -v runuser >/dev/null 2>&1; then
		runuser -u "$u" -- "$@"
	else
		setpriv --reuid="$u" --regid="$(id -g "$u")" --init-groups -- "$@"
	fi
}

# Set by cmd_start, used by its cleanup on failure.
FOLDER= PG_USER= BIN= DATA=
start_failed() {
	local rc=$?
	trap - EXIT HUP INT TERM
	if [ "$rc" -ne 0 ]; then
		[ "$rc" -le 128 ] || log "interrupted (exit $rc); stopping PostgreSQL"
		if [ -n "$DATA" ] && [ -f "$DATA/postmaster.pid" ]; then
			as_user "$PG_USER" "$BIN/pg_ctl" -D "$DATA" -m immediate -w stop >/dev/null 2>&1 || true
		fi
		[ -z "$FOLDER" ] || rm -rf "$FOLDER"
	fi
	exit "$rc"
}

cmd_start() {
	start_args "$@"
	local env_file=$ENV_FILE
	cmd_install
	BIN=$(bin_dir)
	PG_USER=$(os_user)

	on_exit start_failed # stops a half-started server
	FOLDER=$(mktemp -d "${TMPDIR:-/tmp}/seam-pg.XXXXXX")
	touch "$FOLDER/.seam-pg"
	DATA=$FOLDER/data
	local logfile=$FOLDER/postgres.log pwfile=$FOLDER/pw
	: "${env_file:=$FOLDER/env}"
	local password
	password=$(od -An -N18 -tx1 /dev/urandom | tr -d ' \n')
	(
		umask 077
		printf '%s\n' "$password" >"$pwfile"
	)
	chown -R "$PG_USER" "$FOLDER"
	chmod 700 "$FOLDER"

	local t0=$SECONDS
	as_user "$PG_USER" "$BIN/initdb" -D "$DATA" -U "$DB_USER" --pwfile="$pwfile" \
		--auth=scram-sha-256 --encoding=UTF8 --locale=C.UTF-8 >"$FOLDER/initdb.log" 2>&1 ||
		{
			log_tail "$FOLDER/initdb.log" 30
			die "initdb failed"
		}
	rm -f "$pwfile"

	# The chosen port may be taken between the check and the start: try another then.
	local port=${SEAM_PG_PORT:-} tries
	for tries in 1 2 3 4 5; do
		{ [ -n "$port" ] && port_free "$port"; } || port=$(free_port)
		if as_user "$PG_USER" "$BIN/pg_ctl" -D "$DATA" -l "$logfile" -w -t "$TIMEOUT" \
			-o "-c listen_addresses=127.0.0.1 -p $port -c unix_socket_directories=$FOLDER -c max_connections=200" \
			start >/dev/null 2>&1; then
			break
		fi
		if ! grep -q 'could not bind\|Address already in use' "$logfile" 2>/dev/null || [ "$tries" -eq 5 ]; then
			log_tail "$logfile" 30
			die "pg_ctl could not start PostgreSQL"
		fi
		log "port $port was taken; trying another"
		port=
	done

	local dsn="postgres://$DB_USER:$password@127.0.0.1:$port/postgres?sslmode=disable"
	write_env "$env_file" <<EOF
SEAM_TEST_POSTGRES=$dsn
PG_BIN=$BIN
PG_DATA=$DATA
PG_FOLDER=$FOLDER
PG_PORT=$port
PG_OS_USER=$PG_USER
PG_LOG=$logfile
EOF
	trap - EXIT HUP INT TERM
	log "PostgreSQL $("$BIN/postgres" --version | awk '{print $3}') is up on 127.0.0.1:$port after $((SECONDS - t0))s; env in $env_file; stop with: $0 stop $env_file"
	echo "PG_PORT=$port"
}

# load ENVFILE: sets BIN, DATA, FOLDER and PG_USER from a start's env file.
load() {
	[ -f "$1" ] || die "no env file $1"
	BIN=$(env_value "$1" PG_BIN)
	DATA=$(env_value "$1" PG_DATA)
	FOLDER=$(env_value "$1" PG_FOLDER)
	PG_USER=$(env_value "$1" PG_OS_USER)
	[ -n "$BIN" ] && [ -n "$DATA" ] && [ -n "$PG_USER" ] || die "$1 is not an env file of pg-server.sh start"
}

cmd_restart() {
	[ $# -eq 1 ] || die "usage: $0 restart ENVFILE"
	load "$1"
	as_user "$PG_USER" "$BIN/pg_ctl" -D "$DATA" -m fast -w -t "$TIMEOUT" restart >/dev/null ||
		die "pg_ctl restart failed (see $(env_value "$1" PG_LOG))"
	log "restarted PostgreSQL in $DATA"
}

cmd_down() {
	[ $# -eq 1 ] || die "usage: $0 down ENVFILE"
	load "$1"
	as_user "$PG_USER" "$BIN/pg_ctl" -D "$DATA" -m fast -w -t "$TIMEOUT" stop >/dev/null ||
		die "pg_ctl stop failed (see $(env_value "$1" PG_LOG))"
}

cmd_up() {
	[ $# -eq 1 ] || die "usage: $0 up ENVFILE"
	load "$1"
	as_user "$PG_USER" "$BIN/pg_ctl" -D "$DATA" -l "$(env_value "$1" PG_LOG)" -w -t "$TIMEOUT" \
		-o "-c listen_addresses=127.0.0.1 -p $(env_value "$1" PG_PORT) -c unix_socket_directories=$FOLDER -c max_connections=200" \
		start >/dev/null || die "pg_ctl start failed (see $(env_value "$1" PG_LOG))"
}

cmd_stop() {
	[ $# -eq 1 ] || die "usage: $0 stop ENVFILE"
	local env_file=$1
	load "$env_file"
	if [ -f "$DATA/postmaster.pid" ]; then
		log "stopping PostgreSQL in $DATA"
		as_user "$PG_USER" "$BIN/pg_ctl" -D "$DATA" -m fast -w -t 30 stop >/dev/null 2>&1 ||
			as_user "$PG_USER" "$BIN/pg_ctl" -D "$DATA" -m immediate -w stop >/dev/null 2>&1 || true
	else
		log "PostgreSQL in $DATA is not running"
	fi
	remove_folder "$FOLDER" .seam-pg
	rm -f "$env_file"
}

main 15 "install start restart down up stop" "$@"
