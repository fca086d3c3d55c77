#!/usr/bin/env bash
# The tools the test suite drives for real, installed when missing (the tests fail, never skip,
# without them): Prometheus and promtool, age, the sqlite3 shell, headless Chromium, systemd-analyze
# and docker-compose (to check the deploy files), and PostgreSQL's server binaries (the fleet's tests
# start their own cluster in a temporary folder). On Debian and Ubuntu they come from apt, as root or
# through sudo. Elsewhere this names what to install and stops.
set -euo pipefail
need=()
missing() { ! command -v "$1" >/dev/null 2>&1; }
{ missing prometheus || missing promtool; } && need+=(prometheus)
missing age && need+=(age)
missing sqlite3 && need+=(sqlite3)
missing chromium && need+=(chromium)
missing systemd-analyze && need+=(systemd)
missing docker-compose && need+=(docker-compose)
{ [ -x /usr/lib/postgresql/15/bin/postgres ] || ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; } || need+=(postgresql)
[ ${#need[@]} -eq 0 ] && exit 0
if command -v apt-get >/dev/null 2>&1; then
  sudo=()
  [ "$(id -u)" -ne 0 ] && sudo=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update
  "${sudo[@]}" apt-get install -y --no-install-recommends "${need[@]}"
  exit 0
fi
cat >&2 <<MSG
test-deps: missing Debian packages: ${need[*]}
Not a Debian-like system: install the same tools another way, then run npm ci && npm test:
  prometheus + promtool, age, sqlite3 (the shell), Chromium at /usr/bin/chromium, systemd-analyze
  (systemd), docker-compose (its 'config' check of the Compose file), PostgreSQL 13+ server binaries.
  macOS: brew install prometheus age sqlite chromium docker-compose (systemd-analyze has no port:
  run the suite on Linux, or in a Debian container).
MSG
exit 1
