#!/usr/bin/env bash
# Installs the PostgreSQL server binaries (Debian's package) that the warehouse catalog tests
# start a throwaway cluster with (tests/test_warehouse_catalog.py). Idempotent: does nothing
# when initdb is already there. Needs root (CI and the dev machines run as root) or sudo.
set -euo pipefail
if compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null; then
    exit 0
fi
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq postgresql >/dev/null
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null
