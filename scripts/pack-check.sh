#!/usr/bin/env bash
# Packs every package as it would be published and uses the tarballs as a stranger would: a plain
# `npm install` of them into an empty directory outside the repository (dependencies come from the
# registry), then the CLI (`--version`, `mcp` driven by a real MCP client) and the library (plain
# .mjs files importing @agent-tools/runtime and @agent-tools/spill-s3) run there on the repository's Node 22,
# and a TypeScript file importing every package type-checks there with `skipLibCheck: false`; then
# @agent-tools/runtime alone, without its optional packages, in a second directory.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"

PNPM_VERSION=12.21.0
pnpm() { npx -y "pnpm@${PNPM_VERSION}" "$@"; }

work="$(mktemp -d "${TMPDIR:-/tmp}/agent-tools-pack.XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/tarballs" "$work/app" "$work/project" "$work/bin"

# Node 22 first on PATH, and nothing else of the repository (its node_modules/.bin has agent-tools too).
ln -s "$(readlink -f "$repo/node_modules/.bin/node")" "$work/bin/node"
export PATH="$work/bin:$PATH"
echo "--- node $(node --version)"

echo "--- build"
start=$(date +%s%N)
pnpm run build >/dev/null
echo "build: $(( ($(date +%s%N) - start) / 1000000 )) ms"

echo "--- pnpm pack"
for dir in packages/*/; do
  (cd "$dir" && pnpm pack --pack-destination "$work/tarballs" >/dev/null)
done
ls -l "$work/tarballs"
# (whole outputs in variables, not pipes into `grep -q`: under pipefail an early grep exit is a SIGPIPE)
for tarball in "$work/tarballs"/*.tgz; do
  manifest=$(tar -xOzf "$tarball" package/package.json)
  if grep -q '"workspace:' <<<"$manifest"; then
    echo "error: $(basename "$tarball") still has a workspace: dependency" >&2
    exit 1
  fi
done
listing=$(tar -tzf "$work"/tarballs/agent-tools-runtime-*.tgz)
if ! grep -qx 'package/agent-tools.schema.json' <<<"$listing"; then
  echo "error: the @agent-tools/runtime tarball lacks agent-tools.schema.json" >&2
  exit 1
fi
# The Node adapters stay light: the MCP SDK, the AWS SDK and TypeScript come only with the
# optional packages that need them.
manifest=$(tar -xOzf "$work"/tarballs/agent-tools-node-*.tgz package/package.json)
for heavy in '"@agent-tools/mcp"' '"@agent-tools/spill-s3"' '"typescript"' '"typescript-language-server"'; do
  if grep -q "$heavy" <<<"$manifest"; then
    echo "error: @agent-tools/node depends on $heavy" >&2
    exit 1
  fi
done

echo "--- npm install of the tarballs into $work/app"
cd "$work/app"
npm init -y >/dev/null
npm install --no-audit --no-fund --loglevel=error "$work"/tarballs/*.tgz
cp "$repo"/scripts/pack-check/*.mjs "$work/app/"
printf 'hello from the project\n' > "$work/project/hello.txt"

echo "--- npx agent-tools --version"
version=$(npx --no-install agent-tools --version)
echo "$version"
expected=$(node -p "require('$repo/packages/cli/package.json').version")
case "$version" in *"$expected"*) ;; *) echo "error: expected version $expected" >&2; exit 1 ;; esac

echo "--- the bundled CLI finds the terminal packages in its own dependencies"
node --input-type=module -e '
import { createRequire } from "node:module"
const require = createRequire(process.argv[1])
const pty = await import(require.resolve("@lydell/node-pty"))
await import(require.resolve("@xterm/headless"))
const p = (pty.spawn ?? pty.default.spawn)("sh", ["-c", "test -t 0 && echo tty"], { env: { PATH: process.env.PATH } })
let out = ""
p.onData((d) => { out += d })
p.onExit(() => { if (!out.includes("tty")) { console.error("no terminal: " + JSON.stringify(out)); process.exit(1) } console.log("terminal: ok") })
' "$work/app/node_modules/@agent-tools/cli/dist/bundle/bin.cjs"

echo "--- npx agent-tools mcp, driven by an MCP client"
node mcp-client.mjs "$work/project"

echo "--- a plain .mjs importing @agent-tools/runtime"
node library.mjs "$work/project"

echo "--- the contract: tools listed by the library and by MCP, and the config's JSON Schema, byte for byte as from the sources"
(cd "$repo" && node --conditions=agent-tools-source scripts/pack-check/contract.mjs "$work/project" \
  "[\"$(command -v node)\", \"--conditions=agent-tools-source\", \"$repo/packages/cli/bin/agent-tools.js\"]") > "$work/contract-source.json"
node contract.mjs "$work/project" '["npx", "--no-install", "agent-tools"]' > "$work/contract-installed.json"
if ! cmp -s "$work/contract-source.json" "$work/contract-installed.json"; then
  echo "error: the installed packages list other tools or schemas than the sources:" >&2
  diff "$work/contract-source.json" "$work/contract-installed.json" | head -40 >&2
  exit 1
fi
echo "contract: $(node -p "require('$work/contract-installed.json').library.map((t) => t.id).join(', ')"): identical"

echo "--- a plain .mjs importing @agent-tools/spill-s3 (the AWS SDK from the registry)"
node spill-s3.mjs

echo "--- a TypeScript consumer of the packages, type-checked with skipLibCheck: false"
cp "$repo"/scripts/pack-check/consumer.mts "$work/app/"
cat > "$work/app/tsconfig.json" <<JSON
{
  "compilerOptions": {
    "strict": true, "skipLibCheck": false, "noEmit": true,
    "module": "nodenext", "moduleResolution": "nodenext", "target": "es2022",
    "types": ["node"], "typeRoots": ["$repo/node_modules/@types"]
  },
  "files": ["consumer.mts"]
}
JSON
"$repo/node_modules/.bin/tsc" -p "$work/app/tsconfig.json"

echo "--- @agent-tools/runtime alone (no MCP client, S3 store or language servers) into $work/light"
mkdir -p "$work/light"
cd "$work/light"
npm init -y >/dev/null
npm install --no-audit --no-fund --loglevel=error "$work"/tarballs/agent-tools-{core,tools,node,runtime}-*.tgz
for optional in mcp spill-s3 lsp; do
  if [ -e "node_modules/@agent-tools/$optional" ]; then
    echo "error: installing @agent-tools/runtime brought @agent-tools/$optional" >&2
    exit 1
  fi
done
cp "$repo"/scripts/pack-check/light.mjs "$work/light/"
node light.mjs "$work/project"
cp "$repo"/scripts/pack-check/light-consumer.mts "$work/light/"
sed 's/consumer\.mts/light-consumer.mts/' "$work/app/tsconfig.json" > "$work/light/tsconfig.json"
"$repo/node_modules/.bin/tsc" -p "$work/light/tsconfig.json"
echo "light: its declarations type-check with skipLibCheck: false"

echo "pack-check: ok"
