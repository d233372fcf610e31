#!/usr/bin/env bash
# What a user's `npm install` of one published package brings: packs every package as
# scripts/pack-check.sh does, then for each package named on the command line (default: node,
# runtime, cli) installs its tarball, with the tarballs of the workspace packages it depends on,
# into an empty directory, and prints the number of installed packages and their size in MB.
#   bash scripts/install-size.sh [node runtime cli …]
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"
PNPM_VERSION=12.21.0
pnpm() { npx -y "pnpm@${PNPM_VERSION}" "$@"; }
names=("$@")
[ ${#names[@]} -eq 0 ] && names=(node runtime cli)

work="$(mktemp -d "${TMPDIR:-/tmp}/agent-tools-size.XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/tarballs"
pnpm run build >/dev/null
for dir in packages/*/; do
  (cd "$dir" && pnpm pack --pack-destination "$work/tarballs" >/dev/null)
done

for name in "${names[@]}"; do
  [ -d "packages/$name" ] || { echo "$name: no such package"; continue; }
  # The tarballs of the package and of the workspace packages its dependencies reach (not its
  # optional peers: a user who does not add them does not get them).
  tarballs=$(node -e '
    const fs = require("node:fs"), path = require("node:path")
    const [repo, tarballs, start] = process.argv.slice(1)
    const dirOf = (n) => path.join(repo, "packages", n.replace("@agent-tools/", ""))
    const seen = new Set(), todo = ["@agent-tools/" + start]
    while (todo.length > 0) {
      const n = todo.pop()
      if (seen.has(n)) continue
      seen.add(n)
      const deps = JSON.parse(fs.readFileSync(path.join(dirOf(n), "package.json"), "utf8")).dependencies ?? {}
      for (const d of Object.keys(deps)) if (d.startsWith("@agent-tools/")) todo.push(d)
    }
    const files = fs.readdirSync(tarballs)
    console.log([...seen].map((n) => path.join(tarballs, files.find((f) => f.startsWith(n.slice(1).replace("/", "-") + "-")))).join(" "))
  ' "$repo" "$work/tarballs" "$name")
  app="$work/app-$name"
  mkdir -p "$app"
  (cd "$app" && npm init -y >/dev/null && npm install --no-audit --no-fund --loglevel=error $tarballs >/dev/null)
  # Every installed package once (npm ls lists each directory, nested copies included).
  count=$(cd "$app" && npm ls --all --parseable 2>/dev/null | tail -n +2 | sort -u | wc -l)
  mb=$(du -sm "$app/node_modules" | cut -f1)
  echo "@agent-tools/$name: $count packages, $mb MB"
done
