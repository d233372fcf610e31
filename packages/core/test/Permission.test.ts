import { assert, describe, expect, it } from "@effect/vitest"
import { Context, Effect, Exit, Fiber, Layer, Scope, Stream } from "effect"
import * as Events from "../src/Events.ts"
import * as Permission from "../src/Permission.ts"
import type { Ruleset } from "../src/Permission.ts"
import { askInBackground, bash, pendingAtLeast, provide, rules } from "./PermissionHarness.ts"

describe("Permission.ask", () => {
  it.effect("allowed patterns return at once; nothing is pending", () =>
    Effect.gen(function*() {
      const permission = yield* Permission.Permission
      yield* permission.ask(bash("s1", "git status", "git status -s"))
      yield* permission.ask({ sessionID: "s1", permission: "read", patterns: ["/etc/hosts"] })
      yield* permission.ask(bash("s1"))
      expect(yield* permission.pending).toEqual([])
    }).pipe(provide()))

  it.effect("any denied pattern fails at once with the deciding rule, even next to an ask", () =>
    Effect.gen(function*() {
      const permission = yield* Permission.Permission
      const error = yield* Effect.flip(permission.ask(bash("s1", "ls", "rm -rf /")))
      assert.instanceOf(error, Permission.PermissionDeniedError)
      expect(error.message).toBe(
        `A permission rule prevents this tool call: bash "rm -rf /" is denied by the rule {"permission":"bash","pattern":"rm *","action":"deny"}.`
      )
      expect(error.rule).toEqual({ permission: "bash", pattern: "rm *", action: "deny" })
      expect(yield* permission.pending).toEqual([])
    }).pipe(provide()))

  it.effect("an ask waits; reply once resolves it; a second reply finds nothing", () =>
    Effect.gen(function*() {
      const permission = yield* Permission.Permission
      const fiber = yield* askInBackground({
        ...bash("s1", "ls", "git status"),
        tool: { name: "bash", callID: "call-1" },
        metadata: { command: "ls && git status" }
      })
      const [request] = yield* pendingAtLeast(1)
      assert.isDefined(request)
      expect(request.id).toMatch(/^per_[0-9a-f]{18}[0-9a-z]{6}$/)
      expect(request.patterns).toEqual(["ls", "git status"])
      expect(request.tool).toEqual({ name: "bash", callID: "call-1" })
      expect(yield* permission.reply({ requestID: request.id, reply: "once" })).toBe(true)
      yield* Fiber.join(fiber)
      expect(yield* permission.pending).toEqual([])
      expect(yield* permission.reply({ requestID: request.id, reply: "once" })).toBe(false)
      expect(yield* permission.reply({ requestID: "per_unknown", reply: "reject" })).toBe(false)
      // once stores nothing: the same ask waits again
      const again = yield* askInBackground(bash("s1", "ls"))
      yield* pendingAtLeast(1)
      yield* Fiber.interrupt(again)
    }).pipe(provide()))

  it.effect("ids sort by creation", () =>
    Effect.gen(function*() {
      yield* askInBackground(bash("s1", "a"))
      yield* askInBackground(bash("s1", "b"))
      yield* askInBackground(bash("s1", "c"))
      const ids = (yield* pendingAtLeast(3)).map((r) => r.id)
      expect([...ids].sort()).toEqual(ids)
      expect(new Set(ids).size).toBe(3)
    }).pipe(provide()))

  it.effect("interrupting the asking fiber removes the pending request", () =>
    Effect.gen(function*() {
      const permission = yield* Permission.Permission
      const fiber = yield* askInBackground(bash("s1", "ls"))
      const [request] = yield* pendingAtLeast(1)
      yield* Fiber.interrupt(fiber)
      expect(yield* permission.pending).toEqual([])
      expect(yield* permission.reply({ requestID: request!.id, reply: "once" })).toBe(false)
    }).pipe(provide()))

  it.effect("closing the layer rejects what still waits", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(Permission.layer({ rules }).pipe(Layer.provide(Events.layer())), scope)
      const permission = Context.get(context, Permission.Permission)
      const fiber = yield* permission.ask(bash("s1", "ls")).pipe(Effect.forkChild)
      yield* Stream.runHead(permission.asks)
      yield* Scope.close(scope, Exit.void)
      const error = yield* Effect.flip(Fiber.join(fiber))
      expect(error._tag).toBe("PermissionRejectedError")
    }))
})

describe("Permission.reply", () => {
  it.effect("reject fails the ask; a message becomes feedback", () =>
    Effect.gen(function*() {
      const permission = yield* Permission.Permission
      const plain = yield* askInBackground(bash("s1", "ls"))
      const [r1] = yield* pendingAtLeast(1)
      yield* permission.reply({ requestID: r1!.id, reply: "reject" })
      const e1 = yield* Effect.flip(Fiber.join(plain))
      assert.instanceOf(e1, Permission.PermissionRejectedError)
      expect(e1.message).toBe("The user rejected permission to use this specific tool call.")
      expect(e1.requestID).toBe(r1!.id)
      expect(e1.patterns).toEqual(["ls"])

      const corrected = yield* askInBackground(bash("s1", "npm publish"))
      const [r2] = yield* pendingAtLeast(1)
      yield* permission.reply({ requestID: r2!.id, reply: "reject", message: "use pnpm, not npm" })
      const e2 = yield* Effect.flip(Fiber.join(corrected))
      assert.instanceOf(e2, Permission.PermissionRejectedError)
      expect(e2.message).toBe(
        "The user rejected permission to use this specific tool call with the following feedback: use pnpm, not npm"
      )
      expect(e2.feedback).toBe("use pnpm, not npm")
    }).pipe(provide()))

  it.effect("reject cascades to the other asks of the same session only", () =>
    Effect.gen(function*() {
      const permission = yield* Permission.Permission
      const a1 = yield* askInBackground(bash("A", "ls"))
      yield* pendingAtLeast(1)
      const a2 = yield* askInBackground(bash("A", "pwd"))
      yield* pendingAtLeast(2)
      const b1 = yield* askInBackground(bash("B", "ls"))
      const list = yield* pendingAtLeast(3)
      yield* permission.reply({ requestID: list[0]!.id, reply: "reject", message: "stop" })
      const rejected = yield* Effect.flip(Fiber.join(a1))
      assert.instanceOf(rejected, Permission.PermissionRejectedError)
      expect(rejected.feedback).toBe("stop")
      const cascaded = yield* Effect.flip(Fiber.join(a2))
      expect(cascaded.message).toBe("The user rejected permission to use this specific tool call.")
      const left = yield* permission.pending
      expect(left.map((r) => r.sessionID)).toEqual(["B"])
      yield* permission.reply({ requestID: left[0]!.id, reply: "once" })
      yield* Fiber.join(b1)
    }).pipe(provide()))

  it.effect("always approves later asks of the session (not other sessions) and resolves its pending ones", () =>
    Effect.gen(function*() {
      const permission = yield* Permission.Permission
      const first = yield* askInBackground({ ...bash("A", "npm test"), always: ["npm test *"] })
      yield* pendingAtLeast(1)
      const sameSession = yield* askInBackground(bash("A", "npm test --watch"))
      yield* pendingAtLeast(2)
      const stillAsks = yield* askInBackground(bash("A", "npm test", "ls"))
      yield* pendingAtLeast(3)
      const otherSession = yield* askInBackground(bash("B", "npm test"))
      const list = yield* pendingAtLeast(4)
      yield* permission.reply({ requestID: list[0]!.id, reply: "always" })
      yield* Fiber.join(first)
      yield* Fiber.join(sameSession) // now fully allowed: resolved without its own reply
      const left = yield* permission.pending
      expect(left.map((r) => [r.sessionID, r.patterns])).toEqual([["A", ["npm test", "ls"]], ["B", ["npm test"]]])
      // later asks in A are allowed at once; B still has to ask
      yield* permission.ask(bash("A", "npm test"))
      expect((yield* permission.evaluate("bash", "npm test", undefined, "A")).source).toBe("approval")
      expect((yield* permission.evaluate("bash", "npm test", undefined, "B")).action).toBe("ask")
      expect((yield* permission.evaluate("bash", "npm test")).action).toBe("ask")
      for (const r of left) yield* permission.reply({ requestID: r.id, reply: "once" })
      yield* Fiber.join(stillAsks)
      yield* Fiber.join(otherSession)
    }).pipe(provide()))

  it.effect("always is never broader than what was asked", () =>
    Effect.gen(function*() {
      const permission = yield* Permission.Permission
      const ls = yield* askInBackground({ ...bash("s1", "ls -la"), always: ["ls *"] })
      const [r1] = yield* pendingAtLeast(1)
      yield* permission.reply({ requestID: r1!.id, reply: "always" })
      yield* Fiber.join(ls)
      yield* permission.ask(bash("s1", "ls src"))
      yield* permission.ask(bash("s1", "ls"))
      expect((yield* permission.explain(bash("s1", "lsof"))).action).toBe("ask")
      // no `always` given: exactly the asked patterns are approved
      const push = yield* askInBackground(bash("s1", "git push"))
      const [r2] = yield* pendingAtLeast(1)
      yield* permission.reply({ requestID: r2!.id, reply: "always" })
      yield* Fiber.join(push)
      yield* permission.ask(bash("s1", "git push"))
      expect((yield* permission.explain(bash("s1", "git push --force"))).action).toBe("ask")
    }).pipe(provide()))

  it.effect("a session approval never overrides a deny rule", () =>
    Effect.gen(function*() {
      const permission = yield* Permission.Permission
      const any = yield* askInBackground({ ...bash("s1", "make"), always: ["*"] })
      const [r] = yield* pendingAtLeast(1)
      yield* permission.reply({ requestID: r!.id, reply: "always" })
      yield* Fiber.join(any)
      yield* permission.ask(bash("s1", "make install"))
      const error = yield* Effect.flip(permission.ask(bash("s1", "rm -rf build")))
      expect(error._tag).toBe("PermissionDeniedError")
    }).pipe(provide()))
})

describe("Permission unattended", () => {
  it.effect("reject: an ask fails at once, naming the missing responder and the rule", () =>
    Effect.gen(function*() {
      const permission = yield* Permission.Permission
      const error = yield* Effect.flip(permission.ask(bash("s1", "git status", "make", "ls")))
      assert.instanceOf(error, Permission.PermissionRejectedError)
      expect(error.message).toBe(
        "The user rejected permission to use this specific tool call with the following feedback: " +
          `No permission responder is configured (unattended mode "reject"), so this request was rejected: ` +
          `bash "make" needs approval, rule * "*" → ask (configured); bash "ls" needs approval, rule * "*" → ask (configured)`
      )
      expect(yield* permission.pending).toEqual([])
      yield* permission.ask(bash("s1", "git status")) // allowed asks are unaffected
    }).pipe(provide({ rules, unattended: "reject" })))

  it.effect("allow: asks pass, denies still fail", () =>
    Effect.gen(function*() {
      const permission = yield* Permission.Permission
      yield* permission.ask(bash("s1", "make"))
      expect((yield* Effect.flip(permission.ask(bash("s1", "rm x"))))._tag).toBe("PermissionDeniedError")
    }).pipe(provide({ rules, unattended: "allow" })))
})

describe("Permission events", () => {
  it.effect("asked and replied are published", () =>
    Effect.gen(function*() {
      const permission = yield* Permission.Permission
      const events = yield* Events.Events
      // subscribe before acting: startImmediately runs the fiber up to its PubSub subscription
      const collector = yield* events.subscribe.pipe(Stream.take(4), Stream.runCollect, (e) =>
        Effect.forkChild(e, { startImmediately: true }))
      yield* Effect.yieldNow
      const fiber = yield* askInBackground(bash("s1", "ls"))
      const [r1] = yield* pendingAtLeast(1)
      yield* permission.reply({ requestID: r1!.id, reply: "always" })
      yield* Fiber.join(fiber)
      const other = yield* askInBackground(bash("s2", "pwd"))
      const [r2] = yield* pendingAtLeast(1)
      yield* permission.reply({ requestID: r2!.id, reply: "reject" })
      yield* Effect.flip(Fiber.join(other))
      expect(yield* Fiber.join(collector)).toEqual([
        {
          _tag: "PermissionAsked",
          id: r1!.id,
          sessionID: "s1",
          permission: "bash",
          patterns: ["ls"],
          requests: [{ permission: "bash", patterns: ["ls"] }]
        },
        { _tag: "PermissionReplied", id: r1!.id, sessionID: "s1", reply: "always" },
        {
          _tag: "PermissionAsked",
          id: r2!.id,
          sessionID: "s2",
          permission: "bash",
          patterns: ["pwd"],
          requests: [{ permission: "bash", patterns: ["pwd"] }]
        },
        { _tag: "PermissionReplied", id: r2!.id, sessionID: "s2", reply: "reject" }
      ])
    }).pipe(provide()))
})

describe("Permission.explain", () => {
  it.effect("returns the deciding rule per pattern and asks nothing", () =>
    Effect.gen(function*() {
      const permission = yield* Permission.Permission
      const extra: Ruleset = [{ permission: "bash", pattern: "make *", action: "allow" }]
      const explanation = yield* permission.explain({
        ...bash("s1", "git status", "make", "ls", "rm -rf /"),
        ruleset: extra
      })
      expect(explanation.action).toBe("deny")
      expect(explanation.decisions).toEqual([
        { permission: "bash", pattern: "git status", action: "allow", rule: rules[2], source: "rules" },
        { permission: "bash", pattern: "make", action: "allow", rule: extra[0], source: "ruleset" },
        { permission: "bash", pattern: "ls", action: "ask", rule: rules[0], source: "rules" },
        { permission: "bash", pattern: "rm -rf /", action: "deny", rule: rules[3], source: "rules" }
      ])
      expect(yield* permission.pending).toEqual([])
      expect(Permission.explainText(explanation)).toBe([
        `allow bash "git status": rule bash "git status *" → allow (configured)`,
        `allow bash "make": rule bash "make *" → allow (rule of this call)`,
        `ask bash "ls": rule * "*" → ask (configured)`,
        `deny bash "rm -rf /": rule bash "rm *" → deny (configured)`
      ].join("\n"))
    }).pipe(provide()))

  it.effect("no rule: ask with rule undefined", () =>
    Effect.gen(function*() {
      const permission = yield* Permission.Permission
      const explanation = yield* permission.explain({ sessionID: "s1", permission: "edit", patterns: ["a.ts"] })
      expect(explanation).toEqual({
        action: "ask",
        decisions: [{ permission: "edit", pattern: "a.ts", action: "ask", rule: undefined }]
      })
      expect(Permission.explainText(explanation)).toBe(`ask edit "a.ts": no rule matched (default: ask)`)
      expect(Permission.explainText({ action: "allow", decisions: [] })).toBe("allow: nothing to check")
      expect(permission.rules).toEqual([])
    }).pipe(provide({})))

  it.effect("1000 evaluations through the service are identical", () =>
    Effect.gen(function*() {
      const permission = yield* Permission.Permission
      const first = yield* permission.evaluate("bash", "rm -rf build")
      for (let i = 0; i < 1000; i++) expect(yield* permission.evaluate("bash", "rm -rf build")).toEqual(first)
      expect(first.action).toBe("deny")
    }).pipe(provide()))
})
