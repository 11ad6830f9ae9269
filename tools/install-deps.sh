#!/usr/bin/env bash
# Installs the Debian packages npusim needs, only those that are missing.
# Safe to run repeatedly; needs root (or sudo) only when something is missing.
#   tools/install-deps.sh [--fuzz] [--slurm] [--report] [--format]   --fuzz: clang with its sanitizer and libFuzzer
#   runtimes (the asan tree: tools/build.sh asan); --slurm: the one-node Slurm test; --report: headless Chromium for
#   the npusim report render test (cli.ReportRendersInChromium); --format: clang-format 14 (tools/check_format.sh).
#   tools/test.sh (the CI) asks for all four.
set -euo pipefail
PKGS=(cmake g++ make pkg-config libsystemc-dev libyaml-cpp-dev libboost-program-options-dev libboost-context-dev
      googletest libgtest-dev nlohmann-json3-dev libopenblas-dev libxxhash-dev
      python3-numpy python3-yaml parallel zlib1g-dev pybind11-dev python3-dev python3-pytest python3-torch)
for a in "$@"; do
  case "$a" in
    --fuzz) PKGS+=(clang libclang-rt-14-dev) ;;  # the runtimes are only recommended by clang-14
    --slurm) PKGS+=(slurm-wlm munge bc) ;;
    --report) PKGS+=(chromium) ;;
    --format) PKGS+=(clang-format-14) ;;
    *) echo "usage: tools/install-deps.sh [--fuzz] [--slurm] [--report] [--format]" >&2; exit 2 ;;
  esac
done
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "npusim: installing missing packages: ${missing[*]}" >&2
  SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
