#!/usr/bin/env bash
# Installs the system packages the integration tier drives (`npm run test:integration`):
# redis-server (with redis-cli) and Chromium, from Debian's or Ubuntu's packages. Installs only
# what is missing; needs root, or sudo.
set -euo pipefail

missing=()
command -v redis-server >/dev/null 2>&1 && command -v redis-cli >/dev/null 2>&1 || missing+=(redis-server)
command -v chromium >/dev/null 2>&1 || [ -n "${CHROMIUM_PATH:-}" ] || missing+=(chromium)

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup:system: redis-server, redis-cli and Chromium are installed"
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "setup:system: no apt-get here; install ${missing[*]} with your system's package manager" >&2
  echo "(or point CHROMIUM_PATH at a Chromium binary)" >&2
  exit 1
fi

sudo=()
if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null 2>&1; then
    echo "setup:system: run as root, or install sudo: apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
  sudo=(sudo)
fi

echo "setup:system: apt-get install -y ${missing[*]}"
"${sudo[@]}" apt-get update
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
