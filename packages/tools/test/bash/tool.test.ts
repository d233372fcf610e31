/**
 * The bash tool end to end: permissions asked in order, as one prompt (and nothing runs when one is refused),
 * results and notes, truncation with the spill on disk, workdir, shell and environment.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Permission, Sandbox, SubagentRunner, Tool, ToolRegistry, Truncate } from "@agent-tools/core"
import { RecordingSandbox, ScriptedSubagent } from "@agent-tools/testing"
import { TaskTool } from "../../src/task/tool.ts"
import * as Bash from "../../src/bash/index.ts"
import { ALLOW_ALL, args, base, call, live, root, spillDir } from "./toolHarness.ts"

describe("bash tool: permissions", () => {
  live("asks external_directory, edit and bash in that order, as one prompt, then runs", {}, () =>
    Effect.gen(function*() {
      const { asked, prompts, result } = yield* call(args("cat /etc/hostname > out.txt && echo done"))
      assert.strictEqual(prompts.length, 1)
      assert.deepStrictEqual(asked.map((a) => [a.permission, a.patterns, a.always]), [
        ["external_directory", ["/etc/*"], ["/etc/*"]],
        ["edit", ["out.txt"], ["out.txt"]],
        ["bash", ["cat /etc/hostname", "echo done"], ["cat *", "echo *"]]
      ])
      assert.strictEqual(result.output, "done\n")
      assert.isTrue(existsSync(join(root, "out.txt")))
    }))

  live("a denied pattern stops the call before anything runs", {
    rules: [...ALLOW_ALL, { permission: "bash", pattern: "rm *", action: "deny" }]
  }, () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(call(args("touch created.txt; rm -rf sub")))
      assert.strictEqual(error._tag, "PermissionDeniedError")
      assert.isFalse(existsSync(join(root, "created.txt")))
      assert.isTrue(existsSync(join(root, "sub")))
    }))

  live("an unanalysable command is asked even when every rule allows", {}, () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(call(args("$(echo touch) forced.txt")))
      assert.strictEqual(error._tag, "PermissionRejectedError")
      assert.deepStrictEqual((error as Permission.PermissionRejectedError).patterns, [
        "echo touch",
        "$(echo touch) forced.txt",
        "[unanalysed] $(echo touch) forced.txt"
      ])
      assert.isFalse(existsSync(join(root, "forced.txt")))
    }))

  live("…and runs once the user approves it", { unattended: "allow" }, () =>
    Effect.gen(function*() {
      const { result } = yield* call(args("cmd=echo; $cmd approved"))
      assert.strictEqual(result.output, "approved\n")
    }))

  live("requests lists the asks without running", {}, () =>
    Effect.gen(function*() {
      const tool = yield* Tool.build(Bash.BashTool)
      const ctx = yield* Tool.makeContext({ sessionID: "s" })
      const { requests } = yield* tool.plan(args("touch never.txt", { workdir: "sub" }), ctx)
      assert.deepStrictEqual(requests.map((r) => [r.permission, r.patterns]), [["edit", ["sub/never.txt"]], ["bash", ["touch never.txt"]]])
      assert.isFalse(existsSync(join(root, "sub", "never.txt")))
    }))
})

describe("bash tool: paths the kernel's way", () => {
  // base/outside/secret, and ws/link → ../outside: a symlink in a cloned repository is ordinary.
  mkdirSync(join(base, "outside"), { recursive: true })
  writeFileSync(join(base, "outside", "secret"), "s\n")
  if (!existsSync(join(root, "link"))) symlinkSync("../outside", join(root, "link"))
  const attacker: Permission.Ruleset = [
    { permission: "*", pattern: "*", action: "allow" },
    { permission: "external_directory", pattern: "*", action: "deny" }
  ]
  for (
    const command of [
      "cat link/../outside/secret",
      "echo x > link/../outside/f",
      "rm -f link/../outside/secret",
      "rm -f {y,../outside/secret}",
      "cat {a.txt,../outside/secret}"
    ]
  ) {
    live(`${command}: denied before anything runs`, { rules: attacker }, () =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(call(args(command)))
        assert.strictEqual(error._tag, "PermissionDeniedError")
        assert.strictEqual(readFileSync(join(base, "outside", "secret"), "utf8"), "s\n")
        assert.isFalse(existsSync(join(base, "outside", "f")))
      }))
  }
})

describe("bash tool: hidden code under `*` allowed and `rm *` denied", () => {
  // Each would delete `victim` through code the analysis cannot see; none may run without an ask.
  const rules: Permission.Ruleset = [...ALLOW_ALL, { permission: "bash", pattern: "rm *", action: "deny" }]
  for (
    const command of [
      "PS4='$(rm victim)'; set -x; true",
      "x='$(rm victim)'; echo ${x@P}",
      "printf -v 'a[$(rm victim)]' 1",
      "x='a[$(rm victim)]'; echo $((x))",
      "env 'BASH_FUNC_f%%=() { rm victim; }' bash -c f",
      "env -S 'rm victim'",
      "echo 'rm victim' > s.sh && bash s.sh",
      "tar -cf /dev/null --checkpoint=1 --checkpoint-action=exec='rm victim' victim",
      "split --filter='rm victim' victim"
    ]
  ) {
    live(`${command}: not run without an ask`, { rules }, () =>
      Effect.gen(function*() {
        writeFileSync(join(root, "victim"), "v\n")
        const error = yield* Effect.flip(call(args(command)))
        assert.include(["PermissionRejectedError", "PermissionDeniedError"], error._tag)
        assert.isTrue(existsSync(join(root, "victim")))
      }))
  }
})

describe("bash tool: results", () => {
  live("returns the output, exit code and title; a non-zero exit is a result", {}, () =>
    Effect.gen(function*() {
      const ok = yield* call(args("echo hi"))
      assert.strictEqual(ok.result.title, "test command")
      assert.strictEqual(ok.result.output, "hi\n")
      assert.deepStrictEqual([ok.result.metadata.exit, ok.result.metadata.reason, ok.result.metadata.truncated], [0, "exit", false])
      const failed = yield* call(args("exit 3"))
      assert.strictEqual(failed.result.output, "(no output)\n\n<bash_metadata>\nExit code 3.\n</bash_metadata>")
      assert.strictEqual(failed.result.metadata.exit, 3)
    }))

  live("a timeout keeps the output and says so", {}, () =>
    Effect.gen(function*() {
      const { result } = yield* call(args("echo PROGRESS-MARK; sleep 30", { timeout: 1_000 }))
      assert.match(result.output, /^PROGRESS-MARK\n\n<bash_metadata>\nCommand timed out after 1000 ms/)
      // A command that runs until stopped (a server, a watcher) is pointed to a background job.
      assert.include(result.output, "belongs in the background (run_in_background: true, then bash_output)")
      assert.deepStrictEqual([result.metadata.reason, result.metadata.exit, result.metadata.timeout], ["timeout", null, 1_000])
    }))

  live("without a sandbox: says so in the metadata, and claims only the kills it verified", {}, () =>
    Effect.gen(function*() {
      const plain = yield* call(args("echo hi"))
      assert.strictEqual(plain.result.metadata.sandboxed, false)
      assert.strictEqual(plain.result.metadata.sandboxReason, "these tests run commands unconfined")
      const killed = yield* call(args("sleep 100 & echo started"))
      assert.strictEqual(
        killed.result.output,
        "started\n\n<bash_metadata>\nBackground processes still held the output 250 ms after the command finished; they were terminated.\n</bash_metadata>"
      )
      const escaped = yield* call(args("setsid sh -c 'echo \"pid $$\"; sleep 100' & sleep 0.2; echo started"))
      for (const m of escaped.result.output.matchAll(/pid (\d+)/g)) process.kill(Number(m[1]), "SIGKILL")
      assert.include(
        escaped.result.output,
        "<bash_metadata>\nBackground processes still held the output 250 ms after the command finished; the command's process group was killed, but a process that left the process group (setsid, a daemon) still held the output when the call returned and may still be running.\n</bash_metadata>"
      )
    }))

  const ASK_OUTSIDE: Permission.Ruleset = [...ALLOW_ALL, { permission: "external_directory", pattern: "*", action: "ask" }]
  live("an approved outside path goes to the sandbox for its call only, with the access the command needs", { rules: ASK_OUTSIDE, unattended: "allow" }, () =>
    Effect.gen(function*() {
      const shared = join(base, "shared")
      mkdirSync(shared, { recursive: true })
      writeFileSync(join(shared, "x.txt"), "shared\n")
      const sandbox = RecordingSandbox.make()
      const read = yield* call(args(`cat ${shared}/x.txt`)).pipe(Effect.provide(sandbox.layer))
      assert.strictEqual(read.result.output, "shared\n")
      assert.strictEqual(read.result.metadata.sandboxed, true)
      yield* call(args(`echo y > ${shared}/y.txt`)).pipe(Effect.provide(sandbox.layer))
      yield* call(args("ls")).pipe(Effect.provide(sandbox.layer))
      assert.deepStrictEqual(
        sandbox.calls.map((c) => [c.policy.readable, c.policy.writable, c.policy.outside]),
        [[[shared], [], "hidden"], [[], [shared], "hidden"], [[], [], "hidden"]]
      )
      assert.deepStrictEqual(sandbox.calls[0]!.command, {
        command: "/bin/bash",
        args: ["-c", `cat ${shared}/x.txt`],
        env: Bash.NON_INTERACTIVE_ENV
      })
      assert.strictEqual(sandbox.calls[0]!.policy.root, root)
    }))

  live("metadata.sandboxed comes from the wrap that ran, not from the status", {}, () =>
    Effect.gen(function*() {
      const sandbox = RecordingSandbox.make()
      // A status that claims a sandbox, and a wrap that hands back the command unconfined.
      const lying = { ...sandbox.service, wrap: (command: Sandbox.Command) => Effect.succeed({ ...command, sandboxed: false }) }
      const { result } = yield* call(args("echo hi")).pipe(Effect.provideService(Sandbox.Sandbox, lying))
      assert.strictEqual(result.output, "hi\n")
      assert.strictEqual(result.metadata.sandboxed, false)
      assert.strictEqual(result.metadata.sandboxReason, "the sandbox did not wrap this command")
    }))

  live("the sandbox is told a command is coming before the call's checks, and wraps it after", {}, () =>
    Effect.gen(function*() {
      const sandbox = RecordingSandbox.make()
      const events: Array<string> = []
      const told = {
        ...sandbox.service,
        prepare: Effect.sync(() => void events.push("prepare")),
        wrap: (command: Sandbox.Command, policy: Sandbox.Policy) => Effect.andThen(Effect.sync(() => void events.push("wrap")), sandbox.service.wrap(command, policy))
      }
      const { result } = yield* call(args("echo hi")).pipe(Effect.provideService(Sandbox.Sandbox, told))
      assert.strictEqual(result.output, "hi\n")
      assert.deepStrictEqual(events, ["prepare", "wrap"])
    }))

  live("under the network proxy, a call of local programs only gets its own network without the proxy", {}, () =>
    Effect.gen(function*() {
      const sandbox = RecordingSandbox.make({ sandboxed: true, backend: "recording sandbox", network: "proxy", readable: [], writable: [] })
      for (const command of ["ls", "echo hi | grep h && git status", "git fetch", "curl -s https://example.com", "ls; npm test"]) {
        yield* call(args(command)).pipe(Effect.provide(sandbox.layer), Effect.ignore)
      }
      assert.deepStrictEqual(sandbox.calls.map((c) => c.policy.network), ["deny", "deny", undefined, undefined, undefined])
    }))

  live("under the host network, local programs keep it", {}, () =>
    Effect.gen(function*() {
      const sandbox = RecordingSandbox.make()
      yield* call(args("ls")).pipe(Effect.provide(sandbox.layer))
      assert.strictEqual(sandbox.calls[0]!.policy.network, undefined)
    }))

  live("external_directory allowing every path: the sandbox hides nothing", {}, () =>
    Effect.gen(function*() {
      const sandbox = RecordingSandbox.make()
      yield* call(args("ls")).pipe(Effect.provide(sandbox.layer))
      assert.strictEqual(sandbox.calls[0]!.policy.outside, "writable")
    }))

  live("a timeout above the maximum is clamped, and the result says so", { config: { maxTimeout: 1_000 } }, () =>
    Effect.gen(function*() {
      const { result } = yield* call(args("echo quick", { timeout: 999_999 }))
      assert.strictEqual(result.metadata.timeout, 1_000)
      assert.strictEqual(result.metadata.requestedTimeout, 999_999)
      assert.include(result.output, "The requested timeout of 999999 ms exceeds the maximum; 1000 ms was used.")
    }))

  live("aborting keeps the output and says so", {}, () =>
    Effect.gen(function*() {
      const controller = new AbortController()
      setTimeout(() => controller.abort(), 300)
      const { result } = yield* call(args("echo before; sleep 30"), { abort: controller.signal })
      assert.strictEqual(result.metadata.reason, "aborted")
      assert.match(result.output, /^before\n\n<bash_metadata>\nCommand aborted by the user/)
    }))

  /** The numbers `seq` printed that the preview shows. */
  const shown = (output: string) => output.split("\n").filter((l) => /^\d+$/.test(l)).map(Number)

  live("the configured direction wins over bash's own head+tail: global, then per tool", {
    truncation: { maxLines: 10 }
  }, () =>
    Effect.gen(function*() {
      // Unconfigured direction: bash's own head+tail (20% head).
      assert.deepStrictEqual(shown((yield* call(args("seq 1 100"))).result.output), [1, 2, 93, 94, 95, 96, 97, 98, 99, 100])
      const truncate = yield* Truncate.Truncate
      yield* truncate.update({ direction: "head" })
      assert.deepStrictEqual(shown((yield* call(args("seq 1 100"))).result.output), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
      yield* truncate.setToolConfig("bash", { direction: "tail" })
      const tail = (yield* call(args("seq 1 100"))).result
      assert.deepStrictEqual(shown(tail.output), [91, 92, 93, 94, 95, 96, 97, 98, 99, 100])
      assert.include(tail.output, "showing the last 10 of 100 lines")
    }))

  live("truncation.tools.bash.direction from the layer's config", {
    truncation: { maxLines: 3, direction: "head+tail", tools: { bash: { direction: "head" } } }
  }, () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(shown((yield* call(args("seq 1 50"))).result.output), [1, 2, 3])
    }))

  live("a large output is cut head+tail; the full output is on disk, byte for byte", {}, () =>
    Effect.gen(function*() {
      const { result, live: updates } = yield* call(args("seq 1 200000"))
      assert.isTrue(result.metadata.truncated)
      const path = result.metadata.outputPath as string
      assert.isTrue(path.startsWith(spillDir))
      assert.strictEqual(readFileSync(path, "utf8"), Array.from({ length: 200000 }, (_, i) => `${i + 1}\n`).join(""))
      const lines = result.output.split("\n")
      assert.include(lines, "1")
      assert.include(lines, "200000")
      assert.include(result.output, path)
      assert.isAtMost((result.metadata.output as string).length, 30_002)
      for (const u of updates) assert.isAtMost((u.output as string).length, 30_002)
      // The spill is readable without an outside-directory prompt, never writable.
      const read = yield* call(args(`head -3 ${path}`))
      assert.deepStrictEqual(read.asked.map((a) => a.permission), ["bash"])
      assert.strictEqual(read.result.output, "1\n2\n3\n")
      const write = yield* call(args(`echo x >> ${path}`))
      assert.deepStrictEqual(write.asked.map((a) => [a.permission, a.patterns]), [
        ["external_directory", [`${spillDir}/*`]],
        ["edit", [`../spill/${path.slice(spillDir.length + 1)}`]],
        ["bash", ["echo x"]]
      ])
    }))

  live("the truncation hint suggests the task tool when it can run, naming only an agent it offers", {}, () =>
    Effect.gen(function*() {
      const hintOf = (runner: Layer.Layer<SubagentRunner.SubagentRunner>) =>
        Effect.gen(function*() {
          const tools: ReadonlyArray<Tool.Definition<string, any, any>> = [Bash.BashTool, TaskTool]
          const registry = yield* ToolRegistry.make(tools)
          const result = yield* registry.execute("bash", args("seq 1 200000"), yield* Tool.makeContext({ sessionID: "s" }))
          assert.isTrue(result.metadata.truncated)
          return result.output
        }).pipe(Effect.provide(runner))
      const general = yield* hintOf(ScriptedSubagent.layer({ agents: [{ name: "general", description: "d" }], script: [] }))
      assert.include(general, "Use the Task tool to have the general agent process this file")
      assert.notInclude(general, "explore")
      const unavailable = yield* hintOf(SubagentRunner.layerNone)
      assert.notInclude(unavailable, "Task")
      // Nor tools the caller lacks: this registry has no read or grep.
      assert.include(unavailable, "It cannot be retrieved with the tools available to you")
    }))

  live("runs in workdir; a missing workdir is an error naming it", {}, () =>
    Effect.gen(function*() {
      const { result } = yield* call(args("pwd", { workdir: "sub" }))
      assert.strictEqual(result.output, `${join(root, "sub")}\n`)
      const error = yield* Effect.flip(call(args("pwd", { workdir: "nope" })))
      assert.strictEqual(error.message, `workdir nope does not exist (${join(root, "nope")})`)
    }))

  live(
    "a shell in the workspace ($SHELL, an absolute or relative PATH entry) is never run; a configured one that is not trusted fails",
    { env: { SHELL: join(root, "bin", "bash"), PATH: `${join(root, "bin")}:bin:/usr/bin:/bin` } },
    () =>
      Effect.gen(function*() {
        mkdirSync(join(root, "bin"), { recursive: true })
        writeFileSync(join(root, "bin", "bash"), `#!/bin/sh\necho planted > ${join(root, "planted-shell")}\nexec /bin/sh "$@"\n`)
        chmodSync(join(root, "bin", "bash"), 0o755)
        const { result } = yield* call(args("echo ok"))
        assert.strictEqual(result.output, "ok\n")
        assert.notStrictEqual(result.metadata.shell, undefined)
        assert.isFalse(existsSync(join(root, "planted-shell")))
        const configured = yield* Effect.flip(call(args("echo ok")).pipe(Effect.provide(Bash.configLayer({ home: base, shell: join(root, "bin", "bash") }))))
        assert.include(configured.message, `the configured shell ${join(root, "bin", "bash")} is not run: it lies in ${root}, which sandboxed commands can write`)
        assert.isFalse(existsSync(join(root, "planted-shell")))
      })
  )

  live("SHELL=fish is not used: the command still runs in bash", { env: { SHELL: "/usr/bin/fish" } }, () =>
    Effect.gen(function*() {
      const { result } = yield* call(args("[[ 1 -eq 1 ]] && echo ok"))
      assert.strictEqual(result.output, "ok\n")
      assert.strictEqual(result.metadata.shell, "bash")
    }))

  live("rejects bad arguments naming the field", {}, () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(call({ command: "ls", timeout: -5, description: "x" }))
      assert.strictEqual(error._tag, "InvalidArgumentsError")
      assert.match(error.message, /- timeout: /)
      for (const command of ["", " \n\t "]) {
        const empty = yield* Effect.flip(call(args(command)))
        assert.strictEqual(empty._tag, "InvalidArgumentsError")
        assert.include(empty.message, "- command: must not be empty")
      }
    }))

  live("a program path too long for the system says so, once", {}, () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(call(args(`/${"a".repeat(8192)}`)))
      assert.strictEqual(error.message, `Cannot resolve path /${"a".repeat(255)}… (8193 characters): file name too long`)
    }))

  live("binary output is described, not shown; its bytes are kept in the spill however small", {}, () =>
    Effect.gen(function*() {
      const png = join(base, "pixel.png")
      const bytes = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(8), Buffer.from([0xff, 0xfe, 0x01, 0x02])])
      writeFileSync(png, bytes)
      const { result } = yield* call(args(`cat ${png}`))
      const path = result.metadata.outputPath as string
      assert.isTrue(path.startsWith(spillDir))
      assert.deepStrictEqual(readFileSync(path), bytes)
      assert.strictEqual(
        result.output,
        `(binary output: 20 bytes, PNG image; not shown as text. The bytes are saved in ${path}: inspect them with a command such as \`file\`, \`xxd\` or \`od -c\`, or redirect the command's output to a file.)`
      )
      assert.strictEqual(result.metadata.output, result.output)
      const random = yield* call(args("head -c 3000 /dev/urandom"))
      assert.match(random.result.output, /^\(binary output: 3000 bytes, binary data; not shown as text\. The bytes are saved in /)
      assert.strictEqual(readFileSync(random.result.metadata.outputPath as string).length, 3000)
      const gzip = yield* call(args("seq 1 100000 | gzip -c"))
      assert.match(gzip.result.output, /^\(binary output: \d+ bytes, gzip compressed data; not shown as text\./)
      // Text with colours and tabs is still text.
      const text = yield* call(args("printf '\\033[31mred\\033[0m\\tx\\n'"))
      assert.strictEqual(text.result.output, "\u001b[31mred\u001b[0m\tx\n")
      assert.isUndefined(text.result.metadata.outputPath)
    }))
})
