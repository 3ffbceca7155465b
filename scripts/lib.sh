# shellcheck shell=bash
# What the scripts that give tests a real component share (n8n-server.sh, pg-server.sh,
# temporal-server.sh, chromium.sh, test.sh): messages, start's arguments, env files, ports,
# process groups and cleanup on the way out. Source it after setting LOG_NAME, which starts
# every line it writes on stderr:
#
#   LOG_NAME=pg-server
#   . "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
#
# It only defines functions.

log() { printf '%s: %s\n' "$LOG_NAME" "$*" >&2; }
die() {
	printf '%s: error: %s\n' "$LOG_NAME" "$*" >&2
	exit 1
}
need() { command -v "$1" >/dev/null 2>&1 || die "$1 is not installed${2:+ ($2)}"; }

# usage LAST: prints the script's header comment, lines 2 to LAST, and exits 2.
usage() {
	sed -n "2,${1}p" "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

# main LAST COMMANDS ARG...: runs cmd_COMMAND with the arguments after COMMAND, one of
# COMMANDS (separated by spaces); help, -h and --help print the script's header comment, lines
# 2 to LAST. install takes no arguments.
main() {
	local last=$1 commands=$2
	shift 2
	[ $# -ge 1 ] || usage "$last"
	local cmd=$1
	shift
	case $cmd in -h | --help | help) usage "$last" ;; esac
	case " $commands " in *" $cmd "*) ;; *) die "unknown command '$cmd' (one of: $commands)" ;; esac
	[ "$cmd" != install ] || [ $# -eq 0 ] || die "install takes no arguments"
	"cmd_$cmd" "$@"
}

# start_args ARG...: reads start's arguments, --env FILE (or --env=FILE), into ENV_FILE (empty
# without one); anything else is an error.
start_args() {
	ENV_FILE=
	while [ $# -gt 0 ]; do
		case $1 in
		--env)
			[ $# -ge 2 ] || die "--env needs a file"
			ENV_FILE=$2
			shift 2
			;;
		--env=*)
			ENV_FILE=${1#--env=}
			shift
			;;
		*) die "start: unknown argument '$1'" ;;
		esac
	done
}

# env_value FILE KEY: the value of KEY=... in FILE, without sourcing the file.
env_value() {
	sed -n "s/^$2=//p" "$1" | tail -n 1
}

# write_env FILE: writes the KEY=value lines on stdin to FILE, readable by this user only (it
# may hold a password or an API key), making its folder when missing.
write_env() {
	mkdir -p "$(dirname "$1")"
	(
		umask 077
		cat >"$1"
	)
}

# install_lock FOLDER: one install at a time per cache folder: holds FOLDER/.lock on fd 9,
# first waiting for an install that holds it (without flock, it does nothing). The caller then
# checks whether that install has done the work, and closes fd 9 when done.
install_lock() {
	command -v flock >/dev/null 2>&1 || return 0
	exec 9>"$1/.lock"
	if ! flock -n 9; then
		log "another install into $1 is running; waiting for it"
		flock 9
	fi
}

# go_build PKG@VERSION NAME DEST: builds PKG with `go install` into a folder of its own under
# DEST's folder and moves the binary NAME into DEST, so that no caller ever runs a half-written
# binary. The build runs in the background in a process group of its own: a signal then
# interrupts the wait at once, and the caller's cleanup stops the whole build (go and its
# compilers) through INSTALL_PID and removes TMPBIN. Dies with the build log's tail on failure.
go_build() {
	local pkg=$1 name=$2 dest=$3 rc=0
	TMPBIN=$(mktemp -d "$(dirname "$dest")/.build.XXXXXX")
	GOBIN=$TMPBIN GOFLAGS= setsid go install "$pkg" </dev/null >"$TMPBIN/install.log" 2>&1 9>&- &
	INSTALL_PID=$!
	wait "$INSTALL_PID" || rc=$?
	INSTALL_PID=
	if [ "$rc" -ne 0 ] || [ ! -x "$TMPBIN/$name" ]; then
		log "last lines of the go install output:"
		tail -n 40 "$TMPBIN/install.log" >&2 || true
		die "go install $pkg failed (exit $rc)"
	fi
	mv -f "$TMPBIN/$name" "$dest"
	rm -rf "$TMPBIN"
	TMPBIN=
}

# export_env FILE NAME[=KEY]...: exports each NAME with the value of KEY (NAME itself when not
# given) in FILE.
export_env() {
	local file=$1 spec name
	shift
	for spec; do
		name=${spec%%=*}
		printf -v "$name" '%s' "$(env_value "$file" "${spec#*=}")"
		export "${name?}"
	done
}

# on_exit FUNC: runs FUNC on every way out. A signal goes through exit (129, 130 or 143), so
# that FUNC sees in $? how the script ended, and stops what is half-done.
on_exit() {
	trap "$1" EXIT
	trap 'exit 129' HUP
	trap 'exit 130' INT
	trap 'exit 143' TERM
}

# port_free PORT: whether nothing listens on 127.0.0.1:PORT.
port_free() {
	! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# free_port [EXCEPT]: a port nothing listens on, other than EXCEPT, in the range the system
# does not hand out itself.
free_port() {
	local p
	for _ in $(seq 50); do
		p=$((20000 + RANDOM % 12000))
		[ "$p" != "${1:-}" ] && port_free "$p" && {
			echo "$p"
			return 0
		}
	done
	die "found no free port on 127.0.0.1"
}

# alive PID: whether PID runs (an exited child of this shell stays a zombie until reaped).
alive() {
	local stat
	stat=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null) || return 1
	[ -n "$stat" ] && [ "${stat%% *}" != Z ]
}

# log_tail FILE [LINES]: the last LINES (default 40) lines of FILE, on stderr.
log_tail() {
	log "last lines of $1:"
	tail -n "${2:-40}" "$1" >&2 || true
}

# stop_group PID WHAT [SECONDS]: TERM the process group PID leads, KILL it when it is still
# there after SECONDS (default 10).
stop_group() {
	local pid=$1 wait=${3:-10} i
	kill -TERM -- "-$pid" 2>/dev/null || return 0
	for ((i = 0; i < wait * 2; i++)); do
		kill -0 -- "-$pid" 2>/dev/null || return 0
		sleep 0.5
	done
	log "$2 (process group $pid) did not stop within ${wait}s; killing it"
	kill -KILL -- "-$pid" 2>/dev/null || true
	sleep 0.5
}

# remove_folder FOLDER MARKER: removes FOLDER when start made it (it holds the file MARKER).
remove_folder() {
	if [ -n "$1" ] && [ -f "$1/$2" ]; then
		rm -rf "$1"
		log "removed $1"
	fi
}

# stop_server ENVFILE PIDKEY FOLDERKEY MARKER WHAT [SECONDS]: stops the process group whose
# leader's pid is at PIDKEY in a start's ENVFILE (stop_group), removes the folder at FOLDERKEY
# (remove_folder), then ENVFILE.
stop_server() {
	local env_file=$1 pid folder
	[ -f "$env_file" ] || die "no env file $env_file"
	pid=$(env_value "$env_file" "$2")
	folder=$(env_value "$env_file" "$3")
	case $pid in '' | *[!0-9]*) die "no valid $2 in $env_file" ;; esac
	if kill -0 -- "-$pid" 2>/dev/null; then
		log "stopping $5 (process group $pid)"
		stop_group "$pid" "$5" "${6:-10}"
	else
		log "$5 (process group $pid) is not running"
	fi
	remove_folder "$folder" "$4"
	rm -f "$env_file"
}

# started VAR FAILED SKIP: waits for the background start whose pid VAR holds, then empties VAR
# (so that nothing stops that start again; a signal during the wait leaves it to be stopped);
# when the start failed, says FAILED, that SKIP=1 runs the tests without it, and exits.
started() {
	local rc=0
	wait "${!1}" || rc=$?
	printf -v "$1" '%s' ''
	[ "$rc" -eq 0 ] || die "$2; $3=1 runs the tests without it"
}
