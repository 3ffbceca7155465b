#!/usr/bin/env bash
# Gives tests a real n8n server: installs a pinned n8n with npm into a cache folder, starts it
# on loopback with SQLite in a fresh temp folder, creates the owner and an API key, and writes
# an env file that tests read.
#
#   scripts/n8n-server.sh install               install n8n into the cache (skipped when complete)
#   scripts/n8n-server.sh start [--env FILE]    install if needed, start, write FILE
#                                               (default $N8N_USER_FOLDER/env); prints N8N_URL=...
#   scripts/n8n-server.sh stop ENVFILE          stop that server and remove its temp folder
#
# The env file holds N8N_URL, N8N_API_KEY, N8N_PID, N8N_USER_FOLDER, N8N_LOG, N8N_EMAIL and
# N8N_PASSWORD as KEY=value lines; the script never prints the API key.
#
# Environment:
#   SEAM_N8N_CACHE      install folder (default $HOME/.cache/seam/n8n-2.8.4)
#   SEAM_N8N_PORT       preferred HTTP port (default 5679; another free port when taken)
#   SEAM_N8N_TIMEOUT    seconds to wait for the server to become ready (default 180)
#
# Needs node, npm and curl; uses jq when it is installed, else node, to read JSON.
set -euo pipefail

N8N_VERSION=2.8.4
SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
MANIFEST_DIR="$SCRIPT_DIR/n8n"
CACHE=${SEAM_N8N_CACHE:-${HOME:-/root}/.cache/seam/n8n-$N8N_VERSION}
MARKER="$CACHE/.seam-install-complete"
N8N_BIN="$CACHE/node_modules/.bin/n8n"
TIMEOUT=${SEAM_N8N_TIMEOUT:-180}
OWNER_EMAIL=owner@seam.test
OWNER_PASSWORD=Seam-test-1234

LOG_NAME=n8n-server
# shellcheck source=scripts/lib.sh
. "$SCRIPT_DIR/lib.sh"

# json_get PATH: prints the value at PATH (like .data.rawApiKey) of the JSON on stdin; arrays
# and objects are printed as JSON. Fails when the value is missing or null.
json_get() {
	if command -v jq >/dev/null 2>&1; then
		jq -er "$1 | if . == null then null elif type == \"string\" then . else tojson end"
	else
		node -e '
			let s = ""; process.stdin.on("data", d => s += d).on("end", () => {
				let v = JSON.parse(s);
				for (const k of process.argv[1].split(".").filter(Boolean)) v = v == null ? v : v[k];
				if (v == null) process.exit(1);
				process.stdout.write(typeof v === "string" ? v : JSON.stringify(v));
			});' "$1"
	fi
}

# manifest_sum: a checksum of the manifest (and lockfile) the install was made from, so that a
# changed pin reinstalls.
manifest_sum() {
	cat "$MANIFEST_DIR/package.json" "$MANIFEST_DIR"/package-lock.json 2>/dev/null | cksum | cut -d' ' -f1
}

install_complete() {
	[ -f "$MARKER" ] && [ -x "$N8N_BIN" ] && [ "$(cat "$MARKER")" = "$N8N_VERSION $(manifest_sum)" ]
}

cmd_install() {
	need node
	need npm
	[ -f "$MANIFEST_DIR/package.json" ] || die "missing $MANIFEST_DIR/package.json"
	if install_complete; then
		log "n8n $N8N_VERSION is installed in $CACHE"
		return 0
	fi
	mkdir -p "$CACHE"
	install_lock "$CACHE" # a second caller waits, then finds the install complete
	if install_complete; then
		exec 9>&-
		log "n8n $N8N_VERSION is installed in $CACHE"
		return 0
	fi
	# n8n's sqlite3 fetches a prebuilt binary from a host that may be out of reach; it then
	# compiles itself with node-gyp, which needs a compiler and Node's headers (no download).
	local tool
	for tool in python3 make c++; do
		command -v "$tool" >/dev/null 2>&1 ||
			log "warning: $tool is missing; if sqlite3 has to compile, install python3, make and g++ (apt-get install -y python3 make g++)"
	done
	if [ -z "${npm_config_nodedir:-}" ] && [ -z "$(npm config get nodedir 2>/dev/null | grep -v '^undefined$' || true)" ] &&
		[ -f /usr/include/node/node.h ]; then
		export npm_config_nodedir=/usr
	fi
	rm -f "$MARKER"
	cp "$MANIFEST_DIR/package.json" "$CACHE/package.json"
	local npm_cmd
	if [ -f "$MANIFEST_DIR/package-lock.json" ]; then
		cp "$MANIFEST_DIR/package-lock.json" "$CACHE/package-lock.json"
		npm_cmd=(npm ci --no-audit --no-fund)
	else
		rm -f "$CACHE/package-lock.json"
		npm_cmd=(npm install --no-audit --no-fund)
	fi
	log "installing n8n $N8N_VERSION into $CACHE with '${npm_cmd[*]}' (node $(node --version); takes about 10 minutes and 2.3 GB)"
	local start=$SECONDS ticker
	(
		# Leaves no sleep behind holding the caller's pipes when it is killed.
		exec 9>&- >/dev/null
		trap 'kill "$nap" 2>/dev/null; exit 0' TERM
		while :; do
			sleep 30 &
			nap=$!
			wait "$nap"
			log "still installing: $((SECONDS - start))s, node_modules $(du -sh "$CACHE/node_modules" 2>/dev/null | cut -f1 || echo 0) so far (npm resolves and downloads first)"
		done
	) &
	ticker=$!
	local rc=0
	(cd "$CACHE" && "${npm_cmd[@]}" >"$CACHE/npm-install.log" 2>&1) || rc=$?
	kill "$ticker" 2>/dev/null || true
	wait "$ticker" 2>/dev/null || true
	if [ "$rc" -ne 0 ]; then
		log "last lines of $CACHE/npm-install.log:"
		tail -n 40 "$CACHE/npm-install.log" >&2
		die "npm failed (exit $rc) installing n8n $N8N_VERSION into $CACHE"
	fi
	[ -x "$N8N_BIN" ] || die "npm succeeded but $N8N_BIN is missing"
	echo "$N8N_VERSION $(manifest_sum)" >"$MARKER"
	exec 9>&- # so that the server start runs next does not inherit and hold the lock
	log "installed n8n $N8N_VERSION in $((SECONDS - start))s, $(du -sh "$CACHE" | cut -f1) in $CACHE"
}

# Set by cmd_start, used by its cleanup on failure.
STARTED_PID=
USER_FOLDER=
start_failed() {
	local rc=$?
	trap - EXIT HUP INT TERM
	if [ "$rc" -ne 0 ]; then
		[ "$rc" -le 128 ] || log "interrupted (exit $rc); stopping n8n"
		[ -z "$STARTED_PID" ] || stop_group "$STARTED_PID" n8n
		if [ -n "$USER_FOLDER" ] && [ -z "${SEAM_N8N_KEEP:-}" ]; then
			rm -rf "$USER_FOLDER"
		elif [ -n "$USER_FOLDER" ]; then
			log "kept $USER_FOLDER (SEAM_N8N_KEEP is set)"
		fi
	fi
	exit "$rc"
}

cmd_start() {
	start_args "$@"
	local env_file=$ENV_FILE
	need curl
	need setsid "util-linux"
	cmd_install

	on_exit start_failed # stops a half-started server
	USER_FOLDER=$(mktemp -d "${TMPDIR:-/tmp}/seam-n8n.XXXXXX")
	touch "$USER_FOLDER/.seam-n8n"
	: "${env_file:=$USER_FOLDER/env}"
	local logfile="$USER_FOLDER/n8n.log"

	local port=${SEAM_N8N_PORT:-5679}
	port_free "$port" || port=$(free_port)
	local broker_port
	broker_port=$(free_port "$port")
	local url="http://127.0.0.1:$port"

	log "starting n8n $N8N_VERSION on $url (task broker port $broker_port), folder $USER_FOLDER"
	local t0=$SECONDS
	# setsid puts n8n and its task runners in a process group of their own that stop kills.
	N8N_USER_FOLDER=$USER_FOLDER \
		N8N_PORT=$port \
		N8N_LISTEN_ADDRESS=127.0.0.1 \
		N8N_HOST=127.0.0.1 \
		N8N_PROTOCOL=http \
		WEBHOOK_URL="$url/" \
		N8N_RUNNERS_BROKER_PORT=$broker_port \
		N8N_RUNNERS_BROKER_LISTEN_ADDRESS=127.0.0.1 \
		N8N_DIAGNOSTICS_ENABLED=false \
		N8N_PERSONALIZATION_ENABLED=false \
		N8N_TEMPLATES_ENABLED=false \
		N8N_VERSION_NOTIFICATIONS_ENABLED=false \
		N8N_HIRING_BANNER_ENABLED=false \
		N8N_SECURE_COOKIE=false \
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS=true \
		N8N_PUBLIC_API_DISABLED=false \
		DB_TYPE=sqlite \
		N8N_LOG_OUTPUT=console \
		N8N_GRACEFUL_SHUTDOWN_TIMEOUT=10 \
		setsid "$N8N_BIN" start </dev/null >"$logfile" 2>&1 &
	STARTED_PID=$!

	# 1. The readiness probe answers 200 once the database is migrated and the server listens.
	local deadline=$((SECONDS + TIMEOUT))
	until curl -fsS -o /dev/null --max-time 5 "$url/healthz/readiness" 2>/dev/null; do
		if ! alive "$STARTED_PID"; then
			log_tail "$logfile" 60
			die "n8n exited before it was ready"
		fi
		if [ "$SECONDS" -ge "$deadline" ]; then
			log_tail "$logfile" 60
			die "n8n was not ready on $url/healthz/readiness within ${TIMEOUT}s"
		fi
		sleep 1
	done
	log "ready after $((SECONDS - t0))s; creating the owner and an API key"

	# 2. The owner. The REST routes can answer 404 for a moment after readiness, so retry that.
	local jar="$USER_FOLDER/cookies.txt" browser_id body code resp="$USER_FOLDER/resp.json"
	browser_id="seam-test-$(date +%s)-$$"
	local curl_rest=(curl -sS --max-time 30 -c "$jar" -b "$jar" -H "browser-id: $browser_id"
		-H 'Content-Type: application/json' -o "$resp" -w '%{http_code}')
	body=$(printf '{"email":"%s","firstName":"Seam","lastName":"Test","password":"%s"}' \
		"$OWNER_EMAIL" "$OWNER_PASSWORD")
	local tries=0
	while :; do
		tries=$((tries + 1))
		code=$("${curl_rest[@]}" -X POST --data "$body" "$url/rest/owner/setup") || code=000
		[ "$code" = 200 ] && break
		if ! alive "$STARTED_PID"; then
			log_tail "$logfile" 60
			die "n8n exited before its owner was created"
		fi
		if [ "$code" != 404 ] && [ "$code" != 000 ] && [ "$code" != 503 ]; then
			log_tail "$logfile" 60
			die "POST /rest/owner/setup answered $code: $(head -c 500 "$resp")"
		fi
		if [ "$SECONDS" -ge "$deadline" ]; then
			log_tail "$logfile" 60
			die "POST /rest/owner/setup still answered $code after ${TIMEOUT}s"
		fi
		sleep 1
	done

	[ "$tries" -eq 1 ] || log "owner created after $tries tries"

	# 3. An API key with every scope the owner may grant, without expiry.
	code=$("${curl_rest[@]}" "$url/rest/api-keys/scopes") || code=000
	[ "$code" = 200 ] || die "GET /rest/api-keys/scopes answered $code: $(head -c 500 "$resp")"
	local scopes
	scopes=$(json_get .data <"$resp") || die "GET /rest/api-keys/scopes: no data in $(head -c 500 "$resp")"
	body=$(printf '{"label":"seam-tests","scopes":%s,"expiresAt":null}' "$scopes")
	code=$("${curl_rest[@]}" -X POST --data "$body" "$url/rest/api-keys") || code=000
	[ "$code" = 200 ] || die "POST /rest/api-keys answered $code: $(head -c 500 "$resp")"
	local api_key
	api_key=$(json_get .data.rawApiKey <"$resp") || die "POST /rest/api-keys: no data.rawApiKey in the answer"
	rm -f "$resp"

	write_env "$env_file" <<EOF
N8N_URL=$url
N8N_API_KEY=$api_key
N8N_PID=$STARTED_PID
N8N_USER_FOLDER=$USER_FOLDER
N8N_LOG=$logfile
N8N_EMAIL=$OWNER_EMAIL
N8N_PASSWORD=$OWNER_PASSWORD
EOF
	trap - EXIT HUP INT TERM
	log "n8n is up after $((SECONDS - t0))s; env in $env_file; stop with: $0 stop $env_file"
	echo "N8N_URL=$url"
}

cmd_stop() {
	[ $# -eq 1 ] || die "usage: $0 stop ENVFILE"
	stop_server "$1" N8N_PID N8N_USER_FOLDER .seam-n8n n8n 15
}

main 12 "install start stop" "$@"
