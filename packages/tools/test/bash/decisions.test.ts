/**
 * The combined decision (deny > ask > allow over every request) of a command under a given
 * configuration: every part of a compound command, substitutions, wrappers and path spellings,
 * redirects and writing commands, and paths outside the workspace.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { PermissionRules } from "@agent-tools/core"
import type { Permission } from "@agent-tools/core"
import * as Bash from "../../src/bash/index.ts"
import { corpus } from "./corpus.ts"
import { analysisLayer } from "./support.ts"

const decide = (config: Record<string, unknown>, command: string) =>
  Effect.gen(function*() {
    const rules = yield* PermissionRules.fromConfig(config, { home: "/home/u" })
    return yield* Bash.explain(command).pipe(Effect.provide(analysisLayer(rules)))
  })

const table = (name: string, config: Record<string, unknown>, cases: ReadonlyArray<readonly [string, Permission.Action]>) =>
  describe(name, () => {
    for (const [command, expected] of cases) {
      it.effect(`${JSON.stringify(command)} → ${expected}`, () =>
        Effect.gen(function*() {
          const e = yield* decide(config, command)
          assert.strictEqual(e.action, expected, Bash.format(e))
        }))
    }
  })

table("compound commands", { bash: { "*": "ask", "git *": "allow", "rm *": "deny" } }, [
  ["git status && rm -rf x", "deny"],
  ["git status; rm x", "deny"],
  ["git status || rm x", "deny"],
  ["git log | rm x", "deny"],
  ["git status\nrm x", "deny"],
  ["(git status; rm x)", "deny"],
  ["(cd sub; git status)", "allow"]
])

table("substitutions", {
  bash: { "*": "ask", "git *": "allow", "echo *": "allow", "npm --version": "allow" }
}, [
  ["git status $(touch m)", "ask"],
  ["echo `rm x`", "ask"],
  ["cat <(curl x)", "ask"],
  ["{ rm x; }", "ask"],
  ["for f in a; do rm $f; done", "ask"],
  ["X=$(rm x) npm --version", "ask"],
  ["$(printf rm) x", "ask"],
  ["\"$CMD\" x", "ask"],
  ["echo $((1+2))", "allow"],
  ["echo '$(x)'", "allow"]
])

table("substitutions with rm denied", {
  bash: { "*": "ask", "git *": "allow", "echo *": "allow", "rm *": "deny" }
}, [
  ["echo `rm x`", "deny"],
  ["echo \"$(rm -rf /)\"", "deny"],
  ["{ rm x; }", "deny"],
  ["for f in a; do rm $f; done", "deny"],
  ["git status $(rm x)", "deny"]
])

table("wrappers and spellings", {
  bash: { "*": "ask", "git commit *": "deny", "rm *": "deny", "kill *": "ask" }
}, [
  ["CI=true git commit -m x", "deny"],
  ["git -C . commit -m x", "deny"],
  ["git -c a=b commit -m x", "deny"],
  ["env rm x", "deny"],
  ["/bin/rm x", "deny"],
  ["\\rm x", "deny"],
  ["'rm' x", "deny"],
  ["timeout 5 rm x", "deny"],
  ["nice -n 5 rm x", "deny"],
  ["sudo rm x", "deny"],
  ["xargs rm < f", "deny"],
  ["find . -exec rm {} \\;", "deny"],
  ["bash -c 'rm x'", "deny"],
  ["sh -c \"rm x\"", "deny"],
  ["git diff --", "ask"],
  ["kill -9 1", "ask"]
])

table("allow rules do not leak through wrappers", {
  bash: { "*": "ask", "ls *": "allow", "git status *": "allow", "git log *": "allow" }
}, [
  ["ls -la", "allow"],
  ["LD_PRELOAD=/tmp/x.so ls", "ask"],
  ["sudo ls", "ask"],
  ["/tmp/evil/ls", "ask"],
  ["git -c core.pager=sh log", "ask"],
  ["git -C /ws --no-pager log", "allow"],
  ["timeout 5 ls", "allow"],
  ["CI=1 git status", "allow"],
  ["bash -c 'git status && ls'", "allow"]
])

table("redirects and writing commands", {
  bash: { "echo *": "allow", "sed *": "allow", "tee *": "allow" },
  edit: "deny",
  external_directory: "deny"
}, [
  ["echo x > a.txt", "deny"],
  ["echo x >> a.txt", "deny"],
  ["echo x >| a.txt", "deny"],
  ["echo x &> a.txt", "deny"],
  ["echo x | tee a.txt", "deny"],
  ["sed -i s/a/b/ f", "deny"],
  ["echo x > ~/y", "deny"],
  ["echo x > /dev/null", "allow"],
  ["echo x 2>&1", "allow"],
  ["echo x >&2", "allow"],
  ["echo x > \"$VAR/x\"", "ask"]
])

table("outside paths with every command", {
  bash: { "*": "allow" },
  external_directory: "deny"
}, [
  ["head -1 /etc/hosts", "deny"],
  ["ls /etc", "deny"],
  ["tail ~/.bashrc", "deny"],
  ["tee ~/x", "deny"],
  ["rm $HOME/x", "deny"],
  ["cp a ~/b", "deny"],
  ["cd /; ls", "deny"],
  ["cat link/secret", "deny"],
  ["ls ./src", "allow"],
  ["cat src/a.ts", "allow"]
])

table("Unanalysable commands are never allowed by a rule", { bash: { "*": "allow" } }, [
  ["$CMD x", "ask"],
  ["echo \"unterminated", "ask"],
  ["cd $D && rm -rf *", "ask"],
  ["git status", "allow"]
])

table("…but a deny still denies them", { bash: { "*": "deny" } }, [["$CMD x", "deny"]])

describe("explain", () => {
  it.effect("names the rule that decided each pattern", () =>
    Effect.gen(function*() {
      const e = yield* decide({ bash: { "*": "ask", "git *": "allow", "rm *": "deny" } }, "git status && rm -rf /tmp/x")
      assert.strictEqual(e.action, "deny")
      assert.deepStrictEqual(
        e.requests.map((r) => [r.permission, r.decisions.map((d) => [d.pattern, d.action, d.rule?.pattern ?? null])]),
        [
          ["external_directory", [["/tmp/*", "ask", null]]],
          ["edit", [["../tmp/x", "ask", null]]],
          ["bash", [["git status", "allow", "git *"], ["rm -rf /tmp/x", "deny", "rm *"]]]
        ]
      )
      assert.strictEqual(
        Bash.format(e),
        [
          "deny: git status && rm -rf /tmp/x",
          "  command git status",
          "  command rm -rf /tmp/x",
          "  write /tmp/x (outside the workspace) ← /tmp/x in rm -rf /tmp/x",
          "  ask external_directory \"/tmp/*\": no rule matched (default: ask)",
          "  ask edit \"../tmp/x\": no rule matched (default: ask)",
          "  allow bash \"git status\": rule bash \"git *\" → allow (configured)",
          "  deny bash \"rm -rf /tmp/x\": rule bash \"rm *\" → deny (configured)"
        ].join("\n")
      )
    }))
})

// What the kernel sees: the attacker's configuration, with /ws/link → /outside.
table("paths resolve the kernel's way, braces expand, every command's paths are checked", {
  bash: { "*": "allow" },
  edit: "allow",
  external_directory: "deny"
}, [
  ["cat link/../outside/secret", "deny"],
  ["echo x > link/../outside/f", "deny"],
  ["rm -f link/../outside/secret", "deny"],
  ["rm -f {y,../outside/secret}", "deny"],
  ["cat {a.txt,../outside/secret}", "deny"],
  ["cat src/{a,b}{1..2}.ts", "allow"],
  ["mkdir -p a/b && cd a/b && ln -s ../outside ../../lnk; cd ../..; cat lnk/secret; echo owned > lnk/owned", "deny"],
  ["tar -cf sub/../../outside/x.tar a.txt", "deny"],
  ["grep -rf ../outside/secret .", "deny"],
  ["sed 's/a/b/w ../outside/f' a.txt", "deny"],
  ["cat link/../ws/a.txt", "allow"],
  ["rm -f {a,b}.txt", "allow"]
])

table("a link made earlier in the script hides where later paths lead", {
  bash: { "*": "allow" },
  edit: "allow",
  external_directory: "allow"
}, [
  ["ln -s ../outside l; cat l/secret", "ask"],
  ["ln -s ../outside l && cd l && cat secret", "ask"],
  ["ln -s a.txt b.txt", "allow"],
  ["ln -s a.txt b.txt; cat a.txt", "allow"]
])

table("code from stdin and unseen wrappers are asked, never allowed by `*`; what is seen is still denied", {
  bash: { "*": "allow", "rm *": "deny" }
}, [
  ["echo rm x | sh", "ask"],
  ["echo rm x | bash -s", "ask"],
  ["bash <<< 'rm x'", "ask"],
  ["bash < s.sh", "ask"],
  ["source /dev/stdin <<< 'rm x'", "ask"],
  [". <(echo ls)", "ask"],
  [". <(rm x; echo ls)", "deny"],
  ["bash /dev/fd/3 3< s.sh", "ask"],
  ["eval \"$CODE\"", "ask"],
  ["at now <<< 'rm x'", "ask"],
  ["gdb -ex 'shell rm x'", "ask"],
  ["env -S'rm x'", "deny"],
  ["trap -- 'rm x' EXIT", "deny"],
  ["runuser -u u -- rm x", "deny"],
  ["mapfile -C 'rm x' arr < list.txt", "deny"],
  ["script -qc 'rm x' /dev/null", "deny"],
  ["parallel rm ::: a b", "deny"],
  ["strace -f rm x", "deny"],
  ["ltrace rm x", "deny"],
  ["valgrind rm x", "deny"],
  ["unshare -r rm x", "deny"],
  ["nsenter -t 1 -m rm x", "deny"],
  ["firejail rm x", "deny"],
  ["systemd-run --user rm x", "deny"],
  ["busybox rm x", "deny"],
  ["bash s.sh", "allow"],
  ["git status", "allow"]
])

table("prefix rules do not cover commands that run hidden code", {
  bash: {
    "*": "ask",
    "sed -n *": "allow",
    "awk *": "allow",
    "find *": "allow",
    "python3 *": "allow",
    "node *": "allow",
    "perl *": "allow",
    "git *": "allow",
    "npm test *": "allow"
  },
  edit: "ask"
}, [
  ["sed -n '1e rm x' a.txt", "ask"],
  ["sed -n 's/a/b/w out.txt' a.txt", "ask"],
  ["sed -n 's/a/b/p' a.txt", "allow"],
  ["awk 'BEGIN{system(\"rm x\")}'", "ask"],
  ["awk '{print $1 | \"sh\"}' a.txt", "ask"],
  ["awk '{print $1}' a.txt", "allow"],
  ["find . -delete", "ask"],
  ["find . -exec rm {} +", "ask"],
  ["find . -name '*.ts'", "allow"],
  ["python3 -c 'import os; os.remove(\"x\")'", "ask"],
  ["python3 tool.py", "allow"],
  ["python3 <<'EOF'\nimport os\nEOF", "ask"],
  ["echo 'print(1)' | python3 -", "ask"],
  ["python3 -m pytest -x", "allow"],
  ["python3 --version", "allow"],
  ["node -e 'require(\"fs\").rmSync(\"x\")'", "ask"],
  ["perl -e 'unlink \"x\"'", "ask"],
  ["git -c alias.x='!rm x' x", "ask"],
  ["git -c core.pager='rm x' log", "ask"],
  ["git -c core.sshCommand='rm x' fetch", "ask"],
  ["git rebase --exec 'rm x' HEAD~2", "ask"],
  ["git rebase -x 'rm x' HEAD~2", "ask"],
  ["git -c user.name=x log", "allow"],
  ["GIT_PAGER='rm x' git log", "ask"],
  ["GIT_SSH_COMMAND='sh -c x' git fetch", "ask"],
  ["export BASH_ENV=./x.sh; git status", "ask"],
  ["git --no-pager log", "allow"],
  ["git log", "allow"],
  ["npm test --script-shell=./evil.sh", "ask"],
  ["npm test", "allow"]
])

table("deletes are edits: `edit: ask` protects workspace files from rm -rf", {
  bash: { "*": "allow" },
  edit: "ask"
}, [
  ["rm -rf build", "ask"],
  ["rm a.txt", "ask"],
  ["rmdir build", "ask"],
  ["unlink a.txt", "ask"],
  ["shred -u a.txt", "ask"],
  ["find . -delete", "ask"],
  ["ls", "allow"]
])

table("…and `edit: deny` refuses them", { bash: { "*": "allow" }, edit: "deny" }, [
  ["rm -rf build", "deny"],
  ["find src -delete", "deny"],
  ["cat a.txt", "allow"]
])

// Every command in the corpus that runs code the analysis cannot see: with everything allowed but
// `rm`, none runs without an ask (the deny rule on what it may run is not bypassed). Where the
// hidden `rm` can be read after all (`env -S 'rm x'`, an alias's value), it is denied.
describe("hidden code is never allowed where everything but rm is allowed", () => {
  for (const entry of corpus.filter((c) => ["shell-eval", "runs-code", "written"].includes(c.category))) {
    it.effect(JSON.stringify(entry.command), () =>
      Effect.gen(function*() {
        const e = yield* decide({ bash: { "*": "allow", "rm *": "deny" } }, entry.command)
        assert.notStrictEqual(e.action, "allow", Bash.format(e))
        assert.isNotEmpty(e.analysis.unsupported)
      }))
  }
})

table("options that name an output file are writes", { bash: { "*": "ask", "git *": "allow" } }, [
  ["git log -1 --format=%B --output=agent-tools.json", "ask"],
  ["git log -1 --format=%B", "allow"]
])

table("…asked under edit, refused outside", {
  bash: { "*": "allow" },
  edit: "ask",
  external_directory: "deny"
}, [
  ["curl -sSLo out.txt https://example.com", "ask"],
  ["gcc -o ../outside/a a.c", "deny"],
  ["tar -xf a.tar -C ../outside", "deny"],
  ["git format-patch -o ../outside HEAD~1", "deny"],
  ["wget -qO- https://example.com", "allow"]
])

table("path gaps: brace-expanded redirects, cd -P, xargs from a here-string", {
  bash: { "*": "allow" },
  edit: "allow",
  external_directory: "deny"
}, [
  ["echo x > {,../outside/b}", "deny"],
  ["cd -P link/.. && cat outside/secret", "deny"],
  ["xargs cat <<< ../outside/secret", "ask"],
  ["cd -P sub && cat a.txt", "allow"]
])
