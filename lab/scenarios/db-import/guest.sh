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
if [ ! -s "$dump" ] || [ ! -s "$counts" ]; then
  mkdir -p "$dumps"
  docker run --rm --network none --user 0 --mount "type=bind,source=$(realpath "$here"),target=/gen,readonly" \
    --mount "type=bind,source=$dumps,target=/out" "$LL_IMAGE_MARIADB" \
    /bin/sh -c 'perl /gen/make-dump.pl "$1" "/out/$2.counts.tmp" | gzip -6 > "/out/$2.sql.gz.tmp"' \
    sh "$LL_P_SQL_BYTES" "wiki-$LL_P_SQL_BYTES"
  mv -- "$dumps/wiki-$LL_P_SQL_BYTES.sql.gz.tmp" "$dump"
  mv -- "$dumps/wiki-$LL_P_SQL_BYTES.counts.tmp" "$counts"
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
# Starts the server on a fresh copy of the template datadir and waits until it
# answers; returns 1 (its log in $1) when it exits or never answers.
start_server() {
  local log="$1" ready=0
  ll_phase mount
  ll_container_cleanup "$name"
  ll_mount_cleanup
  ll_mount_setup "$LL_MOUNT" "$LL_TRIAL" /var/lib/mysql
  ll_phase start
  # The copy keeps modes and times, not owners (root's either way): on
  # hostshare-nfs every request acts as one unprivileged uid (All_Squash, as a
  # Vagrant share), the server refuses chown, and cp -a run as root fails on that.
  docker run -d --name "$name" --network none --user 0 "${LL_MOUNT_ARGS[@]}" \
    --mount "type=bind,source=$template/datadir,target=/ll-template,readonly" "$LL_IMAGE_MARIADB" /bin/sh -c '
    set -e
    mkdir -p /run/mysqld
    cp -a --no-preserve=ownership /ll-template/. /var/lib/mysql/
    exec mariadbd --user=root --datadir=/var/lib/mysql --socket=/run/mysqld/mysqld.sock \
      --skip-networking --skip-name-resolve' > /dev/null
  for _ in $(seq 1 600); do
    if sql -e 'SELECT 1' > /dev/null 2>&1; then ready=1; break; fi
    [ "$(docker inspect -f '{{.State.Running}}' "$name")" = true ] || break
    sleep 0.5
  done
  [ "$ready" = 1 ] && return 0
  docker logs "$name" > "$log" 2>&1 || true
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
ll_phase prepare
sql -e 'CREATE DATABASE wikidb'

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
sql -e 'SHUTDOWN' > /dev/null 2>&1 || true
docker wait "$name" > /dev/null 2>&1 || true
docker logs "$name" > "$LL_OUT/mariadb.log" 2>&1 || true

{
  printf 'seconds\trows\tdump_bytes\tsql_bytes\tdump_sha256\tmariadb\n'
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$(ll_elapsed "$start" "$end")" "$rows" "$(stat -c %s "$dump")" \
    "$(gzip -dc "$dump" | wc -c)" "$(sha256sum "$dump" | cut -d' ' -f1)" \
    "$(cat "$template/version")"
} > "$LL_OUT/db-import.tsv"
