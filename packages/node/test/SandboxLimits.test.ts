import { readFileSync } from "node:fs"
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, FileSystem } from "effect"
import { SandboxLimits } from "@agent-tools/node"

describe("SandboxLimits", () => {
  it("finds this process's own cgroup beside where the calls' cgroups go", () => {
    // cgroup v1: the calls' cgroups are children of this process's own pids cgroup.
    assert.deepStrictEqual(SandboxLimits.candidateCgroups("8:pids:/agent/x\n0::/"), [
      { parent: "/sys/fs/cgroup/pids/agent/x", own: "/sys/fs/cgroup/pids/agent/x" },
      { parent: "/sys/fs/cgroup", own: "/sys/fs/cgroup" }
    ])
    // cgroup v2: siblings of this process's own (leaf) cgroup.
    assert.deepStrictEqual(SandboxLimits.candidateCgroups("0::/user.slice/run.scope"), [
      { parent: "/sys/fs/cgroup/user.slice", own: "/sys/fs/cgroup/user.slice/run.scope" }
    ])
    assert.deepStrictEqual(SandboxLimits.candidates("8:pids:/\n0::/a"), ["/sys/fs/cgroup/pids", "/sys/fs/cgroup"])
  })

  it.effect("the early write of a call's set-up leaves this process in its own cgroup", () =>
    Effect.gen(function*() {
      const pids = yield* SandboxLimits.detectPids()
      if (pids._tag === "none") return // no pids cgroup here (e.g. an unprivileged user): nothing is written
      const before = readFileSync("/proc/self/cgroup", "utf8")
      assert.include(readFileSync(pids.own, "utf8").split("\n"), String(process.pid), "own is the cgroup this process is in")
      yield* SandboxLimits.startMigrationWait(yield* FileSystem.FileSystem, pids.own)
      assert.strictEqual(readFileSync("/proc/self/cgroup", "utf8"), before)
    }).pipe(Effect.provide(NodeServices.layer)))
})
