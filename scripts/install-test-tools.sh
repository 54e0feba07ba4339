#!/usr/bin/env bash
# Installs the Debian packages the test suite drives as real servers and tools (everything
# `npm test` needs besides Node 22 or 24). Idempotent: installs only what is missing. Installing
# needs root: run it as root, or as a user with sudo (it re-runs itself under sudo when it has
# something to install and is not root).
set -euo pipefail

missing=()
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
command -v nginx >/dev/null 2>&1 || missing+=(nginx-light)
command -v promtool >/dev/null 2>&1 || missing+=(prometheus)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
# The GRIB2 decoder test streams the xz-compressed golden decode through `xz -dc`.
command -v xz >/dev/null 2>&1 || missing+=(xz-utils)
# The cut-download usage test reads a connection's kernel queues with `ss`.
command -v ss >/dev/null 2>&1 || missing+=(iproute2)
# The live observability test (test/stack/observability-live.test.ts) and the alerting config checks.
# Installing them may start Debian's own services on their default ports; the tests never use
# those, they start their own processes on free loopback ports.
command -v prometheus >/dev/null 2>&1 || missing+=(prometheus)
command -v prometheus-alertmanager >/dev/null 2>&1 || missing+=(prometheus-alertmanager)
command -v amtool >/dev/null 2>&1 || missing+=(prometheus-alertmanager)
command -v prometheus-blackbox-exporter >/dev/null 2>&1 || missing+=(prometheus-blackbox-exporter)
command -v prometheus-nginx-exporter >/dev/null 2>&1 || missing+=(prometheus-nginx-exporter)
if [ "${#missing[@]}" -gt 0 ]; then
  # One entry per package (prometheus-alertmanager provides two commands).
  mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
      echo "installing needs root: re-running under sudo"
      exec sudo -- "$0" "$@"
    fi
    echo "install-test-tools: installing ${missing[*]} needs root, and sudo is not available;" >&2
    echo "run this script as root (su -c $0)" >&2
    exit 1
  fi
  echo "installing: ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "test tools present: redis-server nginx promtool chromium xz ss prometheus alertmanager amtool blackbox-exporter nginx-exporter"
fi
