#!/usr/bin/env bash
# db-import scenario (seed 000): a generated MediaWiki-like SQL dump (gzip,
# deterministic: same size parameter, same bytes) imported with the mariadb
# client into MariaDB whose datadir is on the mount kind under test. A fresh
# datadir per trial; the server is started and ready before the clock starts,
# so the import alone is timed; row counts are checked after it.
# Raw output: $LL_OUT/db-import.tsv.
set -euo pipefail
here="$(dirname "$0")"
source "$here/../../../guest/lib.sh"
ll_require LL_OUT LL_MOUNT LL_TRIAL LL_IMAGE_MARIADB LL_P_SQL_BYTES

name="ll-$LL_TRIAL"
# Removals through the Engine API where containers start through it (a curl,
# not a docker CLI start: half a second to a second each under TCG).
trap 'll_phase cleanup; ll_container_cleanup "$name"; ll_mount_cleanup' EXIT

# The dump is made once per size on this host (by the tool image's perl, so
# every host makes the same bytes) and reused by later trials.
ll_phase prepare
dumps="$LL_WORK/dumps"
dump="$dumps/wiki-$LL_P_SQL_BYTES.sql.gz"
counts="$dumps/wiki-$LL_P_SQL_BYTES.counts"
meta="$dumps/wiki-$LL_P_SQL_BYTES.meta"
if [ ! -s "$dump" ] || [ ! -s "$counts" ]; then
  mkdir -p "$dumps"
  rm -f -- "$meta"
  docker run --rm --network none --user 0 --mount "type=bind,source=$(realpath "$here"),target=/gen,readonly" \
    --mount "type=bind,source=$dumps,target=/out" "$LL_IMAGE_MARIADB" \
    /bin/sh -c 'perl /gen/make-dump.pl "$1" "/out/$2.counts.tmp" | gzip -6 > "/out/$2.sql.gz.tmp"' \
    sh "$LL_P_SQL_BYTES" "wiki-$LL_P_SQL_BYTES"
  mv -- "$dumps/wiki-$LL_P_SQL_BYTES.sql.gz.tmp" "$dump"
  mv -- "$dumps/wiki-$LL_P_SQL_BYTES.counts.tmp" "$counts"
fi
# What the output says of the dump (its size, its SQL's size, its sha256),
# taken once per dump: a gzip -dc and a sha256sum of it cost seconds per trial
# under TCG, and the dump does not change once renamed into place. Written
# only after that rename (by the trial that made the dump, or the first one to
# use a dump made before this file existed), and taken again when the dump's
# size is no longer the one it recorded.
dump_bytes="$(stat -c %s "$dump")" sql_bytes='' dump_sha256=''
if [ -s "$meta" ]; then IFS=$'\t' read -r meta_bytes sql_bytes dump_sha256 < "$meta" || :; fi
if [ "${meta_bytes:-}" != "$dump_bytes" ] || [ -z "$sql_bytes" ] || [ -z "$dump_sha256" ]; then
  sql_bytes="$(gzip -dc "$dump" | wc -c)"
  dump_sha256="$(sha256sum "$dump" | cut -d' ' -f1)"
  printf '%s\t%s\t%s\n' "$dump_bytes" "$sql_bytes" "$dump_sha256" > "$meta.tmp"
  mv -- "$meta.tmp" "$meta"
fi

# A freshly initialised datadir, made once per image on this host:
# mariadb-install-db takes most of a minute under TCG, and each trial's datadir
# is a copy of it, as fresh as a new one (system tables only) for a fraction
# of the time. The server's version is recorded beside it.
template="$LL_WORK/mariadb/${LL_IMAGE_MARIADB##*:}"
if [ ! -s "$template/version" ]; then
  rm -rf -- "$template.tmp"
  mkdir -p -- "$template.tmp/datadir"
  docker run --rm --network none --user 0 --mount "type=bind,source=$template.tmp,target=/t" "$LL_IMAGE_MARIADB" \
    /bin/sh -c 'set -e
      mariadb-install-db --user=root --datadir=/t/datadir --auth-root-authentication-method=normal \
        --skip-test-db --skip-name-resolve > /t/install.log 2>&1 || { cat /t/install.log >&2; exit 1; }
      mariadbd --version | tr "\t" " " > /t/version'
  rm -rf -- "$template"
  mv -- "$template.tmp" "$template"
fi

# Without -i: a query must not eat the stdin of the loop around it.
sql() {
  docker exec "$name" mariadb --user=root --socket=/run/mysqld/mysqld.sock "$@"
}
# The server's command: the copy keeps modes and times, not owners (root's
# either way): on hostshare-nfs every request acts as one unprivileged uid
# (All_Squash, as a Vagrant share), the server refuses chown, and cp -a run as
# root fails on that.
server_cmd='
    set -e
    mkdir -p /run/mysqld
    cp -a --no-preserve=ownership /ll-template/. /var/lib/mysql/
    exec mariadbd --user=root --datadir=/var/lib/mysql --socket=/run/mysqld/mysqld.sock \
      --skip-networking --skip-name-resolve'
# How many times, half a second apart, a start is checked before it counts as
# failed (LL_DB_READY_POLLS: tests only; 600 is five minutes of waiting).
polls="${LL_DB_READY_POLLS:-600}"
# The server's id where it starts through the Engine API; 1 once its wikidb exists.
server_id='' created=0
# Starts the server on a fresh copy of the template datadir and waits until it
# answers; returns 1 (its log in $1) when it exits or never answers.
start_server() {
  local log="$1"
  ll_phase mount
  ll_container_cleanup "$name"
  ll_mount_cleanup
  ll_mount_setup "$LL_MOUNT" "$LL_TRIAL" /var/lib/mysql
  ll_phase start
  if ll_engine_api; then start_server_api "$log"; else start_server_cli "$log"; fi
}
start_server_cli() {
  local log="$1" ready=0
  docker run -d --name "$name" --network none --user 0 "${LL_MOUNT_ARGS[@]}" \
    --mount "type=bind,source=$template/datadir,target=/ll-template,readonly" "$LL_IMAGE_MARIADB" \
    /bin/sh -c "$server_cmd" > /dev/null
  for _ in $(seq 1 "$polls"); do
    if sql -e 'SELECT 1' > /dev/null 2>&1; then ready=1; break; fi
    [ "$(docker inspect -f '{{.State.Running}}' "$name")" = true ] || break
    sleep 0.5
  done
  [ "$ready" = 1 ] && return 0
  docker logs "$name" > "$log" 2>&1 || true
  return 1
}
# Through the Engine API (ll_engine_api): no docker CLI, no libnetwork
# sandbox, and no docker exec nor inspect per check (a second and more each
# under TCG): one curl per check asks for the container's state and its log.
# Ready is the server's own line "mariadbd: ready for connections." while it
# runs: MariaDB prints it once its socket listens (a client that connects then
# waits in the listen queue until the server accepts), and the first query
# (CREATE DATABASE) confirms it; a failing one counts as a failed start (its
# log kept, one more try on a fresh copy). The log is searched raw (grep -a),
# not split into streams (LL_LOG_SPLIT): each log line is one frame of the
# stream (Docker splits only lines over 16 KiB), so no frame header falls
# inside those words, and the one before them only prefixes their line; no
# perl nor temporary file per check. grep -o prints only what matched: the
# state and the ready line, never the stream's binary headers.
start_server_api() {
  local log="$1" seen=''
  server_id="$(ll_api_container_start --ro-bind "$template/datadir" /ll-template \
    "$name" "$LL_IMAGE_MARIADB" /bin/sh -c "$server_cmd")"
  for _ in $(seq 1 "$polls"); do
    seen="$(curl --silent --show-error --fail --unix-socket "$LL_DOCKER_SOCKET" "http://docker/containers/$server_id/json" \
      --next --silent --show-error --fail --unix-socket "$LL_DOCKER_SOCKET" \
      "http://docker/containers/$server_id/logs?stdout=1&stderr=1" |
      grep -a -o -e '"Running":true' -e 'ready for connections' || :)"
    [[ $seen == *'"Running":true'* ]] || break
    [[ $seen != *'ready for connections'* ]] || break
    sleep 0.5
  done
  if [[ $seen == *'"Running":true'* && $seen == *'ready for connections'* ]]; then
    ll_phase prepare
    if sql -e 'CREATE DATABASE wikidb'; then
      created=1
      return 0
    fi
  fi
  (ll_container_output "$name" "$server_id" "$log" "$log") || true
  return 1
}

# The server's start is not timed. One failed start (seen once in CI on a
# volume: InnoDB refused to start, cause not logged) gets one more try on a
# fresh copy; its log stays in the trial output, and a second failure fails
# the trial with the first errors the server logged.
if ! start_server "$LL_OUT/mariadb-start-1.log"; then
  echo "layerlab: warning: MariaDB did not start on mount $LL_MOUNT; trying once more (log: mariadb-start-1.log)" >&2
  if ! start_server "$LL_OUT/mariadb-start-2.log"; then
    tail -n 20 "$LL_OUT/mariadb-start-2.log" >&2
    cause="$(grep -E '\[ERROR\]' "$LL_OUT/mariadb-start-2.log" | head -n 2 | tr '\n' ' ' || true)"
    ll_die "MariaDB did not become ready on mount $LL_MOUNT, twice (first errors: ${cause:-none logged}; logs: mariadb-start-*.log)"
  fi
fi
if [ "$created" != 1 ]; then
  ll_phase prepare
  sql -e 'CREATE DATABASE wikidb'
fi

ll_phase work
start="$(ll_now)"
gzip -dc "$dump" | docker exec -i "$name" mariadb --user=root --socket=/run/mysqld/mysqld.sock wikidb
end="$(ll_now)"
ll_phase output

# table=rows/expected for every table the generator wrote, in one query
# (each docker exec costs seconds under TCG). Table names come from our own
# generator and are backquoted.
tables=() expected=() counts_sql=()
while IFS=$'\t' read -r table count; do
  tables+=("$table") expected+=("$count")
  counts_sql+=("(SELECT COUNT(*) FROM wikidb.\`$table\`)")
done < "$counts"
read -r -a got <<< "$(sql -N -e "SELECT $(IFS=,; echo "${counts_sql[*]}")")"
rows=""
for i in "${!tables[@]}"; do
  rows+="${rows:+,}${tables[$i]}=${got[$i]:-missing}/${expected[$i]}"
done
# The server stopped and its log kept. Through the Engine API: its stop,
# which sends the server SIGTERM and answers once it has exited. mariadbd
# (pid 1, exec'd) shuts down on SIGTERM as on SHUTDOWN (the same clean
# shutdown: InnoDB flushed, "Shutdown complete" logged), and a curl costs a
# tenth of a docker exec under TCG; the datadir is removed after it either
# way. t=600: a shutdown that hangs is killed after ten minutes, where
# SHUTDOWN and `docker wait` would wait for ever.
if [ -n "$server_id" ]; then
  ll_docker_api_quietly -X POST "http://docker/containers/$server_id/stop?t=600"
  (ll_container_output "$name" "$server_id" "$LL_OUT/mariadb.log" "$LL_OUT/mariadb.log") || true
else
  sql -e 'SHUTDOWN' > /dev/null 2>&1 || true
  docker wait "$name" > /dev/null 2>&1 || true
  docker logs "$name" > "$LL_OUT/mariadb.log" 2>&1 || true
fi

{
  printf 'seconds\trows\tdump_bytes\tsql_bytes\tdump_sha256\tmariadb\n'
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$(ll_elapsed "$start" "$end")" "$rows" "$dump_bytes" "$sql_bytes" \
    "$dump_sha256" "$(cat "$template/version")"
} > "$LL_OUT/db-import.tsv"
