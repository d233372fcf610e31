/** Permission: batches of asks (askAll), rules that always ask, and the stream of asks. */
import { assert, describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Stream } from "effect"
import * as Events from "../src/Events.ts"
import * as Permission from "../src/Permission.ts"
import type { Ruleset } from "../src/Permission.ts"
import { askInBackground, bash, pendingAtLeast, provide, rules } from "./PermissionHarness.ts"

describe("Permission.askAll", () => {
  const call = (sessionID: string): Permission.AskAllInput => ({
    sessionID,
    tool: { name: "bash", callID: "c1" },
    requests: [
      { permission: "external_directory", patterns: ["/etc/*"], always: ["/etc/*"] },
      { permission: "edit", patterns: ["a.txt"], always: ["a.txt"] },
      { permission: "bash", patterns: ["git status", "touch a.txt"], always: ["touch *"] }
    ]
  })
  const askAllInBackground = (input: Permission.AskAllInput) =>
    Permission.Permission.use((permission) => permission.askAll(input).pipe(Effect.forkChild))

  it.effect("any deny refuses at once: nothing is asked, nothing is published", () =>
    Effect.gen(function*() {
      const permission = yield* Permission.Permission
      const events = yield* Events.Events
      const seen = yield* events.subscribe.pipe(Stream.take(1), Stream.runCollect, (e) => Effect.forkChild(e, { startImmediately: true }))
      yield* Effect.yieldNow
      const input = call("s1")
      const error = yield* Effect.flip(permission.askAll({
        ...input,
        requests: [...input.requests, { permission: "bash", patterns: ["rm -rf x"] }]
      }))
      assert.instanceOf(error, Permission.PermissionDeniedError)
      expect(error.pattern).toBe("rm -rf x")
      expect(yield* permission.pending).toEqual([])
      // The next ask is the first event: the deny published nothing.
      yield* askInBackground(bash("s1", "ls"))
      const [first] = yield* Fiber.join(seen)
      expect(first).toMatchObject({ _tag: "PermissionAsked", permission: "bash", patterns: ["ls"] })
    }).pipe(provide()))

  it.effect("every ask of the call is one pending request; allowed requests are left out", () =>
    Effect.gen(function*() {
      const permission = yield* Permission.Permission
      const fiber = yield* askAllInBackground(call("s1"))
      const [request, ...others] = yield* pendingAtLeast(1)
      expect(others).toEqual([])
      expect(request!.permission).toBe("external_directory, edit, bash")
      expect(request!.patterns).toEqual(["/etc/*", "a.txt", "git status", "touch a.txt"])
      expect(request!.requests.map((r) => r.permission)).toEqual(["external_directory", "edit", "bash"])
      expect(request!.tool).toEqual({ name: "bash", callID: "c1" })
      yield* permission.reply({ requestID: request!.id, reply: "once" })
      yield* Fiber.join(fiber)

      // With bash allowed by rule, only the other two are asked.
      const partial = yield* askAllInBackground({ ...call("s1"), requests: call("s1").requests.slice(0, 2) })
      const [second] = yield* pendingAtLeast(1)
      expect(second!.requests.map((r) => r.permission)).toEqual(["external_directory", "edit"])
      yield* permission.reply({ requestID: second!.id, reply: "once" })
      yield* Fiber.join(partial)
      const readOnly = yield* askAllInBackground({ sessionID: "s1", requests: [{ permission: "read", patterns: ["/x"] }] })
      expect(Exit.isSuccess(yield* Fiber.await(readOnly))).toBe(true)
    }).pipe(provide()))

  it.effect("one PermissionAsked event per prompt, with every request and pattern", () =>
    Effect.gen(function*() {
      const permission = yield* Permission.Permission
      const events = yield* Events.Events
      const collector = yield* events.subscribe.pipe(Stream.take(2), Stream.runCollect, (e) =>
        Effect.forkChild(e, { startImmediately: true }))
      yield* Effect.yieldNow
      const fiber = yield* askAllInBackground(call("s1"))
      const [request] = yield* pendingAtLeast(1)
      yield* permission.reply({ requestID: request!.id, reply: "once" })
      yield* Fiber.join(fiber)
      expect(yield* Fiber.join(collector)).toEqual([
        {
          _tag: "PermissionAsked",
          id: request!.id,
          sessionID: "s1",
          permission: "external_directory, edit, bash",
          patterns: ["/etc/*", "a.txt", "git status", "touch a.txt"],
          requests: [
            { permission: "external_directory", patterns: ["/etc/*"] },
            { permission: "edit", patterns: ["a.txt"] },
            { permission: "bash", patterns: ["git status", "touch a.txt"] }
          ]
        },
        { _tag: "PermissionReplied", id: request!.id, sessionID: "s1", reply: "once" }
      ])
    }).pipe(provide()))

  it.effect("always stores every request's always patterns; the same call then asks nothing", () =>
    Effect.gen(function*() {
      const permission = yield* Permission.Permission
      const fiber = yield* askAllInBackground(call("s1"))
      const [request] = yield* pendingAtLeast(1)
      yield* permission.reply({ requestID: request!.id, reply: "always" })
      yield* Fiber.join(fiber)
      yield* permission.askAll(call("s1"))
      expect(yield* permission.pending).toEqual([])
      for (const [p, pattern] of [["external_directory", "/etc/*"], ["edit", "a.txt"], ["bash", "touch b.txt"]] as const) {
        expect((yield* permission.evaluate(p, pattern, undefined, "s1")).source).toBe("approval")
      }
      expect((yield* permission.evaluate("edit", "b.txt", undefined, "s1")).action).toBe("ask")
    }).pipe(provide()))

  it.effect("reject refuses the whole call with every pattern named", () =>
    Effect.gen(function*() {
      const permission = yield* Permission.Permission
      const fiber = yield* askAllInBackground(call("s1"))
      const [request] = yield* pendingAtLeast(1)
      yield* permission.reply({ requestID: request!.id, reply: "reject", message: "not now" })
      const error = yield* Effect.flip(Fiber.join(fiber))
      assert.instanceOf(error, Permission.PermissionRejectedError)
      expect(error.permission).toBe("external_directory, edit, bash")
      expect(error.patterns).toEqual(["/etc/*", "a.txt", "git status", "touch a.txt"])
      expect(error.feedback).toBe("not now")
      expect((yield* permission.evaluate("edit", "a.txt", undefined, "s1")).action).toBe("ask")
    }).pipe(provide()))

  it.effect("unattended reject publishes the one prompt and names each pattern that needed approval", () =>
    Effect.gen(function*() {
      const permission = yield* Permission.Permission
      const error = yield* Effect.flip(permission.askAll(call("s1")))
      assert.instanceOf(error, Permission.PermissionRejectedError)
      expect(error.feedback).toContain(`edit "a.txt" needs approval`)
      expect(error.feedback).toContain(`bash "touch a.txt" needs approval`)
      expect(error.feedback).not.toContain(`"git status" needs`)
    }).pipe(provide({ rules, unattended: "reject" })))
})

describe("Permission alwaysAsk", () => {
  const editAllowed: Ruleset = [
    { permission: "*", pattern: "*", action: "allow" },
    { permission: "edit", pattern: "*", action: "allow" },
    { permission: "edit", pattern: "secret/*", action: "deny" }
  ]

  it.effect("asks even when a rule or an approval allows; a deny still denies", () =>
    Effect.gen(function*() {
      const permission = yield* Permission.Permission
      const guarded = { sessionID: "s", permission: "edit", patterns: [".git/config"], always: [], alwaysAsk: true }
      const explained = yield* permission.explain(guarded)
      assert.strictEqual(explained.action, "ask")
      assert.strictEqual(explained.decisions[0]?.source, "always-ask")
      assert.include(Permission.explainText(explained), "always asked (a protected control file); rule edit \"*\" → allow does not apply")
      const plain = yield* permission.explain({ ...guarded, alwaysAsk: undefined })
      assert.strictEqual(plain.action, "allow")
      const denied = yield* permission.explain({ ...guarded, patterns: ["secret/x"] })
      assert.strictEqual(denied.action, "deny")

      // An "always" reply to another edit approves it for the session, never the protected one.
      const fiber = yield* askInBackground({ sessionID: "s", permission: "edit", patterns: [".git/config"], always: ["*"], alwaysAsk: true })
      const [request] = yield* pendingAtLeast(1)
      yield* permission.reply({ requestID: request!.id, reply: "always" })
      yield* Fiber.join(fiber)
      assert.strictEqual((yield* permission.explain(guarded)).action, "ask")
    }).pipe(provide({ rules: editAllowed })))
})

describe("Permission.asks", () => {
  it.effect("a stream of the requests that wait: those pending when it starts, then each new one, once each", () =>
    Effect.gen(function*() {
      const permission = yield* Permission.Permission
      const first = yield* permission.ask(bash("s1", "ls")).pipe(Effect.forkChild)
      yield* pendingAtLeast(1)
      const seen: Array<string> = []
      const taking = yield* permission.asks.pipe(
        Stream.take(3),
        Stream.runForEach((r) => Effect.sync(() => seen.push(r.patterns.join(" ")))),
        Effect.forkChild
      )
      const second = yield* permission.ask(bash("s1", "make")).pipe(Effect.forkChild)
      const third = yield* permission.ask(bash("s2", "npm test")).pipe(Effect.forkChild)
      yield* Fiber.join(taking)
      expect(seen).toEqual(["ls", "make", "npm test"])
      for (const r of yield* permission.pending) yield* permission.reply({ requestID: r.id, reply: "once" })
      yield* Fiber.join(first)
      yield* Fiber.join(second)
      yield* Fiber.join(third)
    }).pipe(provide()))

  it.effect("a request settled before its turn is skipped; `settled` returns once a request is answered", () =>
    Effect.gen(function*() {
      const permission = yield* Permission.Permission
      const gone = yield* permission.ask(bash("s1", "ls")).pipe(Effect.forkChild)
      const [request] = yield* pendingAtLeast(1)
      const waiting = yield* permission.settled(request!.id).pipe(Effect.forkChild)
      yield* Fiber.interrupt(gone)
      yield* Fiber.join(waiting)
      const kept = yield* permission.ask(bash("s1", "make")).pipe(Effect.forkChild)
      const [next] = yield* Stream.runCollect(Stream.take(permission.asks, 1))
      expect(next!.patterns).toEqual(["make"])
      yield* permission.reply({ requestID: next!.id, reply: "once" })
      yield* Fiber.join(kept)
      // Unknown or answered: at once.
      yield* permission.settled(next!.id)
    }).pipe(provide()))

  it.effect("a reject rejects the session's asks pending at that moment, not one asked once the rejected call woke", () =>
    Effect.gen(function*() {
      const permission = yield* Permission.Permission
      const rejected = yield* permission.ask(bash("s1", "ls")).pipe(Effect.forkChild)
      const [request] = yield* pendingAtLeast(1)
      // The rejected call asks again as soon as it wakes (a retry), before the reply has finished.
      const retry = yield* Fiber.await(rejected).pipe(Effect.andThen(permission.ask(bash("s1", "make"))), Effect.forkChild)
      yield* permission.reply({ requestID: request!.id, reply: "reject" })
      const [again] = yield* Stream.runCollect(Stream.take(permission.asks, 1))
      expect(again!.patterns).toEqual(["make"])
      yield* permission.reply({ requestID: again!.id, reply: "once" })
      yield* Fiber.join(retry)
    }).pipe(provide()))
})
