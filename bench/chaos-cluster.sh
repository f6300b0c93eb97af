#!/usr/bin/env bash
# Runs a whole Provenant installation on separate hosts on this machine:
# every component (geth, a pg_auto_failover monitor and two PostgreSQL
# nodes, SeaweedFS, Redis, three origins, HAProxy, an edge) in its own network namespace
# with its own address on a private bridge. Needs root.
#
#   bench/chaos-cluster.sh install   install the Debian packages it needs
#   bench/chaos-cluster.sh up        start it and print the addresses; Ctrl-C stops it
#   bench/chaos-cluster.sh chaos     the chaos run (docs/operations.md's table)
#   bench/chaos-cluster.sh down      remove namespaces and bridges a killed run left
set -euo pipefail
cd "$(dirname "$0")/.."

case "${1:-}" in
install)
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
    iproute2 haproxy postgresql postgresql-15-auto-failover redis-server
  command -v geth >/dev/null || go install github.com/ethereum/go-ethereum/cmd/geth@v1.17.8
  # SeaweedFS (weed): .ci/run builds the pinned release into $GOPATH/bin.
  command -v weed >/dev/null || echo "weed (SeaweedFS) missing: build it as .ci/run does" >&2
  ;;
up)
  shift
  exec go run ./bench chaos -up "$@"
  ;;
chaos)
  shift
  exec go run ./bench chaos "$@"
  ;;
down)
  # Namespaces are named pv<tag>-<host>, bridges pvb<tag>; kill what
  # still runs in them first.
  for ns in $(ip netns list | awk '$1 ~ /^pv[0-9a-f]{4}-/ {print $1}'); do
    for pid in $(ip netns pids "$ns"); do kill -9 "$pid" 2>/dev/null || true; done
    ip netns del "$ns"
  done
  for br in $(ip -o link show type bridge | awk -F': ' '$2 ~ /^pvb[0-9a-f]{4}$/ {print $2}'); do
    ip link del "$br"
  done
  ;;
*)
  sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
  ;;
esac
