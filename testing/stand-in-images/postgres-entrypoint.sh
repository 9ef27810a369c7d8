# The official postgres image's start, as far as compose.yaml uses it: on an empty PGDATA, a cluster whose
# POSTGRES_USER (default postgres) has POSTGRES_PASSWORD, password logins from other hosts, and POSTGRES_DB (default
# the user's name); then the server on every address, in the foreground.
set -eu
user=${POSTGRES_USER:-postgres}
db=${POSTGRES_DB:-$user}
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  password=$(mktemp)
  printf '%s\n' "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD is required}" >"$password"
  initdb -D "$PGDATA" -U "$user" --pwfile="$password" --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm "$password"
  echo 'host all all all scram-sha-256' >>"$PGDATA/pg_hba.conf"
  if [ "$db" != postgres ]; then
    # Only the socket while the database is made, so that a TCP health check cannot pass before the real start.
    pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
    createdb -U "$user" "$db"
    pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
  fi
fi
exec postgres -D "$PGDATA" -c listen_addresses='*'
