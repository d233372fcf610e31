/** The analysis in detail: arity and always patterns, wrappers, redirects, cd tracking, failures. */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Bash from "../../src/bash/index.ts"
import { corpus } from "./corpus.ts"
import { analysisLayer } from "./support.ts"

const analyze = (command: string, cwd?: string) => Bash.analyzeCommand(command, { cwd })

describe("arity", () => {
  const table: ReadonlyArray<readonly [string, string]> = [
    ["git checkout main", "git checkout *"],
    ["git config user.name x", "git config user.name *"],
    ["npm run build --watch", "npm run build *"],
    ["docker compose up -d", "docker compose up *"],
    ["ls -la", "ls *"],
    ["rm -rf build", "rm *"],
    ["unknowncmd a b", "unknowncmd *"],
    ["git", "git"],
    ["npm", "npm"],
    ["npx prettier --write .", "npx prettier *"],
    ["pnpm dlx create-vite app", "pnpm dlx create-vite *"]
  ]
  for (const [command, expected] of table) {
    it(`${command} → ${expected}`, () => {
      const tokens = command.split(" ")
      assert.strictEqual(Bash.alwaysPattern(tokens), expected)
    })
  }

  it("prefix follows opencode's BashArity", () => {
    assert.deepStrictEqual(Bash.prefix(["git", "-C", "repo", "status"]), ["git", "-C"]) // flags are tokens…
    assert.deepStrictEqual(Bash.prefix([]), [])
    assert.strictEqual(Bash.arity(["aws", "s3", "ls", "x"]), 3)
  })

  it("hoists global options before the subcommand (so the arity sees `git commit`)", () => {
    const id = (w: string) => w
    assert.deepStrictEqual(Bash.hoist("git", ["-C", "repo", "--no-pager", "commit", "-m", "x"], id), {
      words: ["commit", "-m", "x"],
      risky: false,
      changed: true
    })
    assert.isTrue(Bash.hoist("git", ["-c", "core.pager=sh", "log"], id).risky)
    assert.isTrue(Bash.hoist("git", ["-ccore.pager=sh", "log"], id).risky)
    assert.deepStrictEqual(Bash.hoist("git", ["--version"], id).words, ["--version"]) // nothing after the options
    assert.deepStrictEqual(Bash.hoist("kubectl", ["-n", "prod", "delete", "pod", "x"], id).words, ["delete", "pod", "x"])
    assert.deepStrictEqual(Bash.hoist("ls", ["-la"], id).words, ["-la"])
  })
})

describe("always patterns", () => {
  const table: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
    ["git checkout main", ["git checkout *"]],
    ["sudo rm a.txt", ["rm *", "sudo rm *"]],
    ["sudo -u bob timeout 5 rm a.txt", ["rm *", "sudo -u bob timeout 5 rm *"]],
    ["sudo -v", ["sudo -v"]],
    ["su root -c 'git status'", ["su root -c 'git status'", "git status *"]],
    ["env", ["env"]],
    ["bash -c 'rm a.txt'", ["rm *"]],
    ["bash -lc 'ls'", ["bash -lc 'ls'", "ls *"]],
    ["bash -lc 'rm *.log'", ["rm *"]], // a `*` in an exact pattern would approve more than itself
    ["bash script.sh --fast", ["bash script.sh *"]],
    ["source ./env.sh", ["source ./env.sh *"]],
    ["python -c 'import os'", ["python -c 'import os'"]],
    ["python tool.py --x", ["python tool.py *"]],
    ["python -m pytest -x", ["python -m pytest *"]],
    ["node -e 'process.exit(1)'", ["node -e 'process.exit(1)'"]],
    ["node server.js", ["node server.js *"]],
    ["timeout 5 npm test", ["npm test *"]],
    ["git -c a=b log", ["git log *", "git -c a=b log"]],
    ["LD_PRELOAD=/tmp/x.so ls", ["ls *", "LD_PRELOAD=/tmp/x.so ls *"]],
    ["CI=1 npm test", ["npm test *"]],
    ["$CMD x", []],
    ["export PATH=/tmp:$PATH", ["export PATH=/tmp:$PATH"]]
  ]
  for (const [command, expected] of table) {
    it.effect(`${command} → ${JSON.stringify(expected)}`, () =>
      Effect.gen(function*() {
        assert.deepStrictEqual((yield* analyze(command)).always, expected)
      }).pipe(Effect.provide(analysisLayer())))
  }

  const WRAPPERS = ["sudo", "doas", "bash", "sh", "zsh", "env", "xargs", "timeout", "nice", "nohup", "eval", "exec", "command", "time", "watch", "su"]
  it.effect("no always pattern in the corpus is broader than its command's own prefix", () =>
    Effect.gen(function*() {
      for (const entry of corpus) {
        const a = yield* analyze(entry.command)
        for (const command of a.commands) {
          for (const always of command.always) {
            for (const w of WRAPPERS) assert.notStrictEqual(always, `${w} *`, entry.command)
            assert.notStrictEqual(always, "*", entry.command)
            const head = always.endsWith(" *") ? always.slice(0, -2) : always
            assert.isTrue(command.patterns.some((p) => p === head || p.startsWith(`${head} `)), `${entry.command}: ${always}`)
          }
        }
      }
    }).pipe(Effect.provide(analysisLayer())))
})

describe("wrappers", () => {
  it.effect("records the wrappers a command runs under", () =>
    Effect.gen(function*() {
      const a = yield* analyze("sudo -u bob env FOO=1 timeout 5 nice git status")
      const command = a.commands[0]!
      assert.deepStrictEqual(command.via, ["sudo", "env", "timeout", "nice"])
      assert.deepStrictEqual(command.argv, ["git", "status"])
      assert.deepStrictEqual(command.patterns, ["git status", "sudo -u bob env FOO=1 timeout 5 nice git status"])
    }).pipe(Effect.provide(analysisLayer())))

  it.effect("parses the code of nested shells recursively", () =>
    Effect.gen(function*() {
      const a = yield* analyze(`bash -c "sh -c 'rm a.txt && ls'"`)
      assert.deepStrictEqual(a.patterns, ["rm a.txt", "ls"])
      assert.deepStrictEqual(a.unsupported, [])
    }).pipe(Effect.provide(analysisLayer())))

  it.effect("gives up (unsupported) beyond 8 nested scripts", () =>
    Effect.gen(function*() {
      let script = "ls"
      for (let i = 0; i < 9; i++) script = `eval ${JSON.stringify(script)}`
      const a = yield* analyze(script)
      assert.deepStrictEqual(a.unsupported, ["scripts nested more than 8 levels deep"])
    }).pipe(Effect.provide(analysisLayer())))

  it.effect("find: roots are directories, -exec commands are commands, -fprint files are writes", () =>
    Effect.gen(function*() {
      const a = yield* analyze("find src /tmp -name '*.o' -fprint found.txt -execdir rm -f {} +")
      assert.deepStrictEqual(a.patterns, ["find src /tmp -name '*.o' -fprint found.txt -execdir rm -f {} +", "rm -f {}"])
      // `-execdir rm` deletes under the roots: they are written (was: read)
      assert.deepStrictEqual(a.paths.map((p) => [p.path, p.access, p.kind]), [
        ["/ws/src", "write", "directory"],
        ["/tmp", "write", "directory"],
        ["/ws/found.txt", "write", "any"]
      ])
      const listing = yield* analyze("find src -name '*.o' -exec ls -l {} +")
      assert.deepStrictEqual(listing.paths.map((p) => [p.path, p.access]), [["/ws/src", "read"]])
    }).pipe(Effect.provide(analysisLayer())))

  it.effect("env -C and sudo -D change the directory of the inner command only", () =>
    Effect.gen(function*() {
      const a = yield* analyze("env -C sub cat a.txt; cat b.txt")
      assert.deepStrictEqual(a.paths.map((p) => p.path), ["/ws/sub", "/ws/sub/a.txt", "/ws/b.txt"])
    }).pipe(Effect.provide(analysisLayer())))
})

describe("redirects", () => {
  it.effect("targets are reads or writes, descriptor duplications are not files", () =>
    Effect.gen(function*() {
      const a = yield* analyze("sort < in.txt > out.txt 2> err.txt 2>&1 >&2 3<&0 &>> all.log")
      assert.deepStrictEqual(a.paths.map((p) => [p.input, p.access, p.source]), [
        ["in.txt", "read", "redirect"],
        ["out.txt", "write", "redirect"],
        ["err.txt", "write", "redirect"],
        ["all.log", "write", "redirect"]
      ])
      assert.deepStrictEqual(a.patterns, ["sort"])
    }).pipe(Effect.provide(analysisLayer())))

  it.effect("a redirect on a compound statement applies to it; here-strings are not files", () =>
    Effect.gen(function*() {
      const a = yield* analyze("{ echo a; echo b; } > both.txt; cat <<< \"/etc/passwd\"")
      assert.deepStrictEqual(a.paths.map((p) => p.path), ["/ws/both.txt"])
    }).pipe(Effect.provide(analysisLayer())))

  it.effect("process substitution targets run their commands", () =>
    Effect.gen(function*() {
      const a = yield* analyze("echo x > >(tee /tmp/log)")
      assert.deepStrictEqual(a.patterns, ["tee /tmp/log", "echo x"])
      assert.deepStrictEqual(a.paths.map((p) => [p.path, p.access]), [["/tmp/log", "write"]])
    }).pipe(Effect.provide(analysisLayer())))
})

describe("cd tracking", () => {
  it.effect("later commands run in the new directory; subshells and pipelines do not leak it", () =>
    Effect.gen(function*() {
      const a = yield* analyze("cd src && cat a.ts; (cd /tmp; ls); cd .. | true; cat b.ts")
      assert.deepStrictEqual(a.commands.map((c) => [c.patterns[0], c.cwd]), [
        ["cat a.ts", "/ws/src"],
        ["ls", "/tmp"],
        ["true", "/ws/src"],
        ["cat b.ts", "/ws/src"]
      ])
    }).pipe(Effect.provide(analysisLayer())))

  it.effect("cd alone goes home; cd - and popd of an empty stack are unknown", () =>
    Effect.gen(function*() {
      const home = yield* analyze("cd; cat .profile")
      assert.deepStrictEqual(home.paths.map((p) => p.path), ["/home/u/.profile"])
      const back = yield* analyze("cd -; cat x")
      assert.deepStrictEqual(back.unsupported, ["x is relative to a directory only known at run time"])
      const pop = yield* analyze("popd; cat x")
      assert.deepStrictEqual(pop.unsupported, ["x is relative to a directory only known at run time"])
    }).pipe(Effect.provide(analysisLayer())))

  it.effect("starts in the workdir", () =>
    Effect.gen(function*() {
      const a = yield* analyze("cat ../a.txt", "sub")
      assert.strictEqual(a.cwd, "/ws/sub")
      // `..` stays for Workspace to resolve after symlinks, as the kernel does
      assert.deepStrictEqual(a.paths.map((p) => p.path), ["/ws/sub/../a.txt"])
    }).pipe(Effect.provide(analysisLayer())))

  it.effect("expands ~, $HOME, ${HOME} and $PWD, but not ~user or other variables", () =>
    Effect.gen(function*() {
      const a = yield* analyze("cat ~/a ${HOME}/b \"$HOME/c\" $PWD/d")
      assert.deepStrictEqual(a.paths.map((p) => p.path), ["/home/u/a", "/home/u/b", "/home/u/c", "/ws/d"])
      const b = yield* analyze("cat ~root/x $X/y")
      assert.deepStrictEqual(b.unsupported, [
        "cat: the path ~root/x is only known at run time",
        "cat: the path $X/y is only known at run time"
      ])
    }).pipe(Effect.provide(analysisLayer())))
})

describe("unsupported parts", () => {
  const table: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
    ["echo \"x", ["syntax error near: \"x"]],
    ["$CMD x", ["the command name $CMD is only known at run time"]],
    ["bash -c \"$S\"", ["bash runs code only known at run time: \"$S\""]],
    ["rm \"$F\"", ["rm: the path \"$F\" is only known at run time"]],
    ["echo x > $OUT", ["the redirect target $OUT is only known at run time"]],
    ["cd $D", ["cd to a directory only known at run time: $D"]],
    ["ls | xargs rm", ["xargs passes rm arguments that cannot be checked"]],
    ["ls | xargs -I{} sh -c 'rm {}'", ["xargs passes rm arguments that cannot be checked"]],
    ["ls | xargs wc -l", ["xargs passes wc arguments that cannot be checked"]],
    ["ls | xargs echo", []],
    ["su -c 'rm -rf /x' root", []],
    ["coproc ls", ["coproc is not supported by the analysis"]],
    ["git status", []],
    ["echo $UNKNOWN", []],
    // The same programs used without hidden code stay analysable.
    ["PS4='+ '; set -x; ls", []],
    ["msg=\"[$(date)]\"; echo $msg", []],
    ["printf -v out '%s' x", []],
    ["vim +10 a.txt", []],
    ["vim +/TODO a.txt", []],
    ["vim '+/x/|!rm x' a.txt", ["vim +/x/|!rm x runs an editor command, which can run shell commands"]],
    ["rsync -avz -e ssh a.txt host:b", []],
    ["rsync -e 'sh -c x' a.txt host:b", ["rsync -e runs another program as its remote shell"]],
    ["sqlite3 db 'select 1'", []],
    ["ssh host ls", []],
    ["tar -xzf a.tgz", []],
    ["node a.js --require x", []],
    ["npm test", []],
    ["pnpm exec tsc", []],
    ["make build", []],
    ["bash s.sh; echo x > s.sh", []],
    ["mkdir -p build && cd build && make", []],
    ["tar -xf a.tar && bash s.sh", ["bash runs s.sh, which this command writes: its code is not seen"]]
  ]
  for (const [command, expected] of table) {
    it.effect(`${command} → ${JSON.stringify(expected)}`, () =>
      Effect.gen(function*() {
        assert.deepStrictEqual((yield* analyze(command)).unsupported, expected)
      }).pipe(Effect.provide(analysisLayer())))
  }
})

describe("brace expansion", () => {
  const table: ReadonlyArray<readonly [string, ReadonlyArray<string> | "too many"]> = [
    ["a{b,c}d", ["abd", "acd"]],
    ["{y,../outside/secret}", ["y", "../outside/secret"]],
    ["{a,b{1,2}}", ["a", "b1", "b2"]],
    ["{a..e..2}", ["a", "c", "e"]],
    ["{3..1}", ["3", "2", "1"]],
    ["{08..11}", ["08", "09", "10", "11"]],
    ["{-1..1}", ["-1", "0", "1"]],
    ["x{}y", ["x{}y"]],
    ["{single}", ["{single}"]],
    ["'{a,b}'", ["'{a,b}'"]],
    ["\\{a,b}", ["\\{a,b}"]],
    ["{\"a b\",c}", ["\"a b\"", "c"]],
    ["${x,y}", ["${x,y}"]],
    ["{1..2000}", "too many"],
    ["{a,b}{c,d}{e,f}", ["ace", "acf", "ade", "adf", "bce", "bcf", "bde", "bdf"]]
  ]
  for (const [text, expected] of table) {
    it(`${text} → ${JSON.stringify(expected)}`, () => {
      assert.deepStrictEqual(Bash.expandBraces(text), expected)
    })
  }

  it.effect("expanded words are paths like any other; quotes keep their meaning after expansion", () =>
    Effect.gen(function*() {
      const a = yield* analyze("cat {a,\"b c\",~/d}.txt")
      assert.deepStrictEqual(a.paths.map((p) => p.path), ["/ws/a.txt", "/ws/b c.txt", "/home/u/d.txt"])
      const b = yield* analyze("cat {a,$X}/f")
      assert.deepStrictEqual(b.unsupported, ["cat: the path $X/f is only known at run time"])
    }).pipe(Effect.provide(analysisLayer())))
})

describe("sed scripts", () => {
  const table: ReadonlyArray<readonly [string, Bash.SedEffects]> = [
    ["s/a/b/g", { writes: [], reads: [], runs: false }],
    ["s/new/old/w out.txt", { writes: ["out.txt"], reads: [], runs: false }],
    ["s/a/b/e", { writes: [], reads: [], runs: true }],
    ["1e rm x", { writes: [], reads: [], runs: true }],
    ["/x/w /tmp/o\np", { writes: ["/tmp/o"], reads: [], runs: false }],
    ["1r /etc/passwd", { writes: [], reads: ["/etc/passwd"], runs: false }],
    ["y/abc/xyz/;p", { writes: [], reads: [], runs: false }],
    ["/^#/d; s|/a|/b|", { writes: [], reads: [], runs: false }],
    ["a\\\nwrite me", { writes: [], reads: [], runs: false }],
    ["$!{N;s/\\n/ /}", { writes: [], reads: [], runs: false }],
    [":a;N;$!ba;s/\\n/ /g;w joined.txt", { writes: ["joined.txt"], reads: [], runs: false }],
    ["/x/bend;s/a/b/e;:end", { writes: [], reads: [], runs: true }]
  ]
  for (const [script, expected] of table) {
    it(`${JSON.stringify(script)}`, () => {
      assert.deepStrictEqual(Bash.sedEffects(script), expected)
    })
  }
})

describe("bounds", () => {
  it.effect("a command nested past the limit is a clean error, not a stack overflow", () =>
    Effect.gen(function*() {
      let deep = "ls"
      for (let i = 0; i < 1000; i++) deep = `echo $(${deep})`
      const error = yield* Effect.flip(analyze(deep))
      assert.strictEqual(error._tag, "BashAnalysisError")
      assert.strictEqual(
        error.message,
        "The command nests more than 500 levels deep (substitutions, subshells, quotes, wrappers), more than the analysis follows. Simplify it, or write it to a script file and run that file."
      )
      let wrapped = "rm x"
      for (let i = 0; i < 1000; i++) wrapped = `nice ${wrapped}`
      assert.strictEqual((yield* Effect.flip(analyze(wrapped)))._tag, "BashAnalysisError")
      let fine = "rm x"
      for (let i = 0; i < 20; i++) fine = `echo "$(${fine})"`
      assert.deepStrictEqual((yield* analyze(fine)).unsupported, [])
    }).pipe(Effect.provide(analysisLayer())))

  it.effect("a command over 128 KiB is refused before parsing, naming the size and the limit", () =>
    Effect.gen(function*() {
      const atLimit = `echo ${"a".repeat(Bash.MAX_COMMAND_BYTES - 5)}`
      assert.strictEqual((yield* analyze(atLimit)).patterns.length, 1)
      const error = yield* Effect.flip(analyze(`${atLimit}é`))
      assert.strictEqual(
        error.message,
        "The command is 131074 bytes; a command may be at most 131072 bytes (128 KiB), the most a shell accepts as one argument. Write longer scripts to a file and run that file."
      )
    }).pipe(Effect.provide(analysisLayer())))
})
