/**
 * One environment variable, read through Effect's `ConfigProvider` (tests swap the environment
 * with a provider, as for `Config`): its value, or none when it is unset or empty (the provider
 * treats an empty value as unset, as `Config` does).
 *
 * It asks the provider directly instead of going through `Config.String`, which decodes the value
 * with a schema: the first such read in a process builds that machinery (about 5 ms), and every
 * start-up path reads a variable or two (the data and config directories, PATH for the sandbox).
 */
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"

/** The variable's value, or undefined when unset, empty or unreadable. */
export const get = (name: string): Effect.Effect<string | undefined> =>
  Effect.gen(function*() {
    const provider = yield* ConfigProvider.ConfigProvider
    return (yield* provider.load([name]))?.value
  }).pipe(Effect.orElseSucceed(() => undefined))

/** The variable's value as an Option (none when unset, empty or unreadable). */
export const option = (name: string): Effect.Effect<Option.Option<string>> => Effect.map(get(name), Option.fromUndefinedOr)
