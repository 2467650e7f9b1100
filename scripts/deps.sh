#!/usr/bin/env bash
# Install the Debian 12 packages asc needs to build, test and run its demo.
# Skips apt-get entirely when every package is already installed; needs root
# otherwise.  Nothing else is downloaded, at build or at test time.
set -euo pipefail
pkgs=(build-essential cmake pkg-config libcjson-dev check zlib1g-dev
      libsdl2-dev libsdl2-ttf-dev fonts-dejavu-core
      python3 python3-numpy python3-pytest python3-distributed python3-matplotlib
      xvfb xauth)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "deps: all ${#pkgs[@]} Debian packages present"
  exit 0
fi
echo "deps: installing ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  echo "deps: need root to install packages (run as root, or install: ${missing[*]})" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
