#!/usr/bin/env bash
# A throwaway PostgreSQL server for tests and benchmarks, in a folder of its
# own, listening on 127.0.0.1 only.
#
#   pg-test-server.sh start DIR PORT   initdb into DIR/data, start, create the
#                                      database "fleetd" owned by user "fleetd",
#                                      whose password is in DIR/password
#                                      (SCRAM-SHA-256 on every connection)
#   pg-test-server.sh start DIR PORT tls
#                                      the same, with TLS only (hostssl): a
#                                      test CA in DIR/tls/ca.crt signs the
#                                      server's certificate for "localhost"
#                                      (not for 127.0.0.1); DIR/tls/other-ca.crt
#                                      is a CA that signed nothing here
#   pg-test-server.sh stop DIR         fast shutdown (waits up to 30 s)
#   pg-test-server.sh restart DIR      stop, then start on the same port
#   pg-test-server.sh resume DIR       start a stopped server again
#
# PostgreSQL refuses to run as root: as root, the server runs as "nobody"
# (DIR is given to it; its parent must be searchable). Debian's
# postgresql-15 provides the programs (/usr/lib/postgresql/15/bin).
set -euo pipefail
# Every descriptor inherited beyond the standard three is closed first: the
# server would otherwise keep them open for its whole life (a test runner's
# pipes among them, whose readers would then wait for an end that never comes).
for fd in /proc/$$/fd/*; do
  n=${fd##*/}
  if [ "$n" -gt 2 ] 2>/dev/null; then eval "exec $n>&-" 2>/dev/null || true; fi
done
cmd=${1:?usage: pg-test-server.sh start DIR PORT | stop DIR | restart DIR | resume DIR}
dir=${2:?the server folder}
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
if [ -z "$bin" ]; then
  echo "pg-test-server: PostgreSQL is not installed (apt-get install postgresql-15)" >&2
  exit 1
fi
as=()
if [ "$(id -u)" -eq 0 ]; then as=(runuser -u nobody --); fi
# The server gets none of the caller's descriptors (a caller reading our
# output to its end would wait for the server too).
ctl() { "${as[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 "$@" </dev/null >/dev/null 2>&1; }
case $cmd in
start)
  port=${3:?the port}
  mkdir -p "$dir"
  umask 077
  head -c 18 /dev/urandom | base64 | tr -d '/+=' > "$dir/password"
  if [ ${#as[@]} -gt 0 ]; then
    chown nobody:nogroup "$dir"
    install -o nobody -m 600 "$dir/password" "$dir/pwfile"
  else
    cp "$dir/password" "$dir/pwfile"
  fi
  "${as[@]}" "$bin/initdb" -D "$dir/data" -U fleetd --pwfile="$dir/pwfile" \
    --auth=scram-sha-256 -E UTF8 --no-sync >"$dir/initdb.log" 2>&1
  rm -f "$dir/pwfile"
  cat >>"$dir/data/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$dir'
max_connections = 200
shared_buffers = 256MB
CONF
  if [ "${4:-}" = tls ]; then
    tls=$dir/tls
    mkdir -p "$tls"
    ossl() { openssl "$@" >>"$tls/openssl.log" 2>&1; }
    for ca in ca other-ca; do
      ossl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=fleetd test $ca" \
        -keyout "$tls/$ca.key" -out "$tls/$ca.crt"
    done
    ossl req -newkey rsa:2048 -nodes -subj "/CN=localhost" -keyout "$tls/server.key" \
      -out "$tls/server.csr"
    printf 'subjectAltName = DNS:localhost\n' > "$tls/san.ext"
    ossl x509 -req -in "$tls/server.csr" -CA "$tls/ca.crt" -CAkey "$tls/ca.key" \
      -CAcreateserial -days 2 -extfile "$tls/san.ext" -out "$tls/server.crt"
    chmod 644 "$tls/ca.crt" "$tls/other-ca.crt" "$tls/server.crt"
    chmod 600 "$tls/server.key"
    if [ ${#as[@]} -gt 0 ]; then chown -R nobody:nogroup "$tls"; fi
    cat >>"$dir/data/postgresql.conf" <<CONF
ssl = on
ssl_cert_file = '$tls/server.crt'
ssl_key_file = '$tls/server.key'
CONF
    # TLS only: a connection without it is refused.
    sed -i 's/^host /hostssl /' "$dir/data/pg_hba.conf"
  fi
  ctl start
  PGPASSWORD=$(cat "$dir/password") PGSSLMODE=prefer "$bin/createdb" -h 127.0.0.1 -p "$port" -U fleetd fleetd
  ;;
stop)
  [ -f "$dir/data/postmaster.pid" ] && ctl -m fast stop
  ;;
restart)
  ctl -m fast restart
  ;;
resume)
  ctl start
  ;;
*)
  echo "pg-test-server: unknown command $cmd" >&2
  exit 2
  ;;
esac
