import { assert, describe, it } from "@effect/vitest"
import * as Config from "effect/Config"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { EnvVar } from "@agent-tools/core"

const withEnv = (env: Record<string, string>) => Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env })))

/** What the callers read before: `Config.String` through the same provider. */
const viaConfig = (name: string) =>
  Config.option(Config.String(name)).pipe(Effect.map(Option.getOrUndefined), Effect.orElseSucceed(() => undefined))

describe("EnvVar", () => {
  it.effect("reads a variable through the ConfigProvider in context, as Config.String does", () =>
    Effect.gen(function*() {
      for (const name of ["HOME", "EMPTY", "UNSET", "PATH", "A"]) {
        assert.strictEqual(yield* EnvVar.get(name), yield* viaConfig(name), name)
      }
      assert.strictEqual(yield* EnvVar.get("HOME"), "/home/ann")
      // Unset and empty are both absent.
      assert.isUndefined(yield* EnvVar.get("EMPTY"))
      assert.isUndefined(yield* EnvVar.get("UNSET"))
      // A variable whose name is also a prefix of others (A and A_B) still has its own value.
      assert.strictEqual(yield* EnvVar.get("A"), "one")
      assert.deepStrictEqual(yield* EnvVar.option("PATH"), Option.some("/usr/bin:/bin"))
      assert.deepStrictEqual(yield* EnvVar.option("UNSET"), Option.none())
    }).pipe(withEnv({ HOME: "/home/ann", EMPTY: "", PATH: "/usr/bin:/bin", A: "one", A_B: "two" })))

  it.effect("a provider that fails reads as absent", () =>
    Effect.gen(function*() {
      assert.isUndefined(yield* EnvVar.get("HOME"))
    }).pipe(Effect.provide(ConfigProvider.layer(ConfigProvider.make(() => Effect.fail(new ConfigProvider.SourceError({ message: "unreadable" })))))))
})
