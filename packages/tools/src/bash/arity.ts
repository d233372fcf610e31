/**
 * How many leading words name "the command" for an `always` approval: `git checkout main` has arity
 * 2, so approving it always stores `git checkout *`, never `git *`.
 *
 * The table is opencode's BashArity plus a few package runners (npx, bunx, uvx, …)
 * that would otherwise get `npx *`, which approves running any package at all.
 */

const ONE = [
  "cat", "cd", "chmod", "chown", "cp", "echo", "env", "export", "grep", "kill", "killall", "ln", "ls", "mkdir",
  "mv", "ps", "pwd", "rm", "rmdir", "sleep", "source", "tail", "touch", "unset", "which"
]

const TWO = [
  "bazel", "brew", "bun", "cargo", "cdk", "cf", "cmake", "composer", "consul", "crictl", "deno", "docker",
  "eksctl", "firebase", "flyctl", "git", "go", "gradle", "helm", "heroku", "hugo", "ip", "kind", "kubectl",
  "kustomize", "make", "mc", "minikube", "mongosh", "mysql", "mvn", "ng", "npm", "nvm", "nx", "openssl", "pip",
  "pipenv", "pnpm", "poetry", "podman", "psql", "pulumi", "pyenv", "python", "rake", "rbenv", "redis-cli",
  "rustup", "serverless", "skaffold", "sls", "sst", "swift", "systemctl", "terraform", "tmux", "turbo", "ufw",
  "vault", "vercel", "volta", "wp", "yarn",
  // additions: package runners execute their first operand
  "npx", "bunx", "uvx", "pipx", "uv"
]

const THREE = [
  "aws", "az", "bun run", "bun x", "cargo add", "cargo run", "consul kv", "deno task", "doctl", "docker builder",
  "docker compose", "docker container", "docker image", "docker network", "docker volume", "eksctl create",
  "gcloud", "gh", "git config", "git remote", "git stash", "ip addr", "ip link", "ip netns", "ip route",
  "kind create", "kubectl kustomize", "kubectl rollout", "mc admin", "npm exec", "npm init", "npm run",
  "npm view", "openssl req", "openssl x509", "pnpm dlx", "pnpm exec", "pnpm run", "podman container",
  "podman image", "pulumi stack", "sfdx", "terraform workspace", "vault auth", "vault kv", "yarn dlx",
  "yarn run",
  // additions
  "uv run", "pipx run", "yarn exec"
]

export const ARITY: ReadonlyMap<string, number> = new Map([
  ...ONE.map((k) => [k, 1] as const),
  ...TWO.map((k) => [k, 2] as const),
  ...THREE.map((k) => [k, 3] as const)
])

/** Words in the longest key of the table: only that many leading tokens are ever looked up. */
const LONGEST_KEY = Math.max(...[...ARITY.keys()].map((k) => k.split(" ").length))

/**
 * The arity of `tokens` (unquoted values): the longest key of the table that prefixes them;
 * 1 when none does, 0 for no tokens.
 */
export const arity = (tokens: ReadonlyArray<string>): number => {
  for (let len = Math.min(tokens.length, LONGEST_KEY); len > 0; len--) {
    const n = ARITY.get(tokens.slice(0, len).join(" "))
    if (n !== undefined) return n
  }
  return tokens.length === 0 ? 0 : 1
}

/** opencode's `BashArity.prefix`: the tokens that name the command. */
export const prefix = (tokens: ReadonlyArray<string>): ReadonlyArray<string> => tokens.slice(0, arity(tokens))

/**
 * The `always` pattern for a command: its arity prefix plus ` *`. A command shorter than its
 * arity (`git` alone) gets its exact text, so approving `npm` never approves `npm install x`.
 *
 * `values` decide the arity (quotes removed); `texts` are the words as they appear in the
 * pattern, so the always pattern matches the pattern it approves.
 */
export const alwaysPattern = (values: ReadonlyArray<string>, texts: ReadonlyArray<string> = values): string => {
  const n = arity(values)
  if (values.length < n || n === 0) return texts.join(" ")
  return `${texts.slice(0, n).join(" ")} *`
}

interface GlobalOptions {
  /** Global options followed by a separate value. */
  readonly values: ReadonlySet<string>
  /** Global options that can run code (`git -c core.pager=…`): the written form is asked too. */
  readonly risky: ReadonlySet<string>
}

const opts = (values: ReadonlyArray<string>, risky: ReadonlyArray<string> = []): GlobalOptions => ({
  values: new Set(values),
  risky: new Set(risky)
})

/**
 * Options written before the subcommand (`git -C repo commit`): without hoisting them the arity
 * prefix is `git -C`, and a rule for `git commit *` never sees the commit.
 */
const GLOBAL_OPTIONS: Record<string, GlobalOptions> = {
  git: opts(["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix", "--exec-path"], [
    "-c",
    "--config-env",
    "--exec-path"
  ]),
  kubectl: opts(["-n", "--namespace", "--context", "--cluster", "--kubeconfig", "--user", "-s", "--server", "--token"]),
  docker: opts(["-H", "--host", "--context", "-c", "--config", "-l", "--log-level"]),
  podman: opts(["--connection", "--url", "--root", "--runroot", "--log-level"]),
  helm: opts(["-n", "--namespace", "--kube-context", "--kubeconfig"]),
  make: opts(["-C", "-f", "--directory", "--file", "-j", "--jobs", "-l", "-o", "-W"]),
  npm: opts(["--prefix", "-w", "--workspace"]),
  pnpm: opts(["-C", "--dir", "--filter", "-F", "--workspace-dir"]),
  yarn: opts(["--cwd"]),
  cargo: opts(["-C", "--config", "-Z"], ["--config"]),
  terraform: opts([]),
  gh: opts(["-R", "--repo"])
}

export interface Hoisted<W> {
  /** The words after the name with global options removed. */
  readonly words: ReadonlyArray<W>
  /** A dropped option can run code: the written form must be asked too. */
  readonly risky: boolean
  /** Something was dropped. */
  readonly changed: boolean
}

/** Drops global options written before the subcommand of `name`; `value` reads a word. */
export const hoist = <W>(name: string, words: ReadonlyArray<W>, value: (w: W) => string): Hoisted<W> => {
  const table = GLOBAL_OPTIONS[name]
  if (table === undefined) return { words, risky: false, changed: false }
  let i = 0
  let risky = false
  while (i < words.length) {
    const v = value(words[i]!)
    if (!v.startsWith("-") && !v.startsWith("+")) break // `cargo +nightly build`
    const option = v.includes("=") ? v.slice(0, v.indexOf("=")) : v
    if (table.risky.has(option) || [...table.risky].some((r) => r.length === 2 && v.startsWith(r) && v.length > 2)) {
      risky = true
    }
    i += table.values.has(v) ? 2 : 1
  }
  // Only options and no subcommand (`git --version`): nothing to hoist.
  if (i === 0 || i >= words.length) return { words, risky: false, changed: false }
  return { words: words.slice(i), risky, changed: true }
}
