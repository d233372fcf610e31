/** The shape of a bash command's permission analysis: what runs, where, and which paths it touches. */
import type { Access, Kind } from "./paths.ts"

export interface Options {
  /** The absolute directory the command starts in. */
  readonly cwd: string
  /** The home directory, for `~` and `$HOME`. */
  readonly home: string
}

export interface Command {
  /** The command as it appears in the script (or inside its wrapper). */
  readonly text: string
  /** Its words after unwrapping and quote removal. */
  readonly argv: ReadonlyArray<string>
  /** `bash` patterns asked for it: the normalised form, plus the written form when that adds risk. */
  readonly patterns: ReadonlyArray<string>
  /** Patterns stored on an `always` reply: never broader than the command's own prefix. */
  readonly always: ReadonlyArray<string>
  /** Wrappers it runs under, outermost first (`sudo`, `bash -c`, `find -exec`). */
  readonly via: ReadonlyArray<string>
  /** The directory it runs in, when known. */
  readonly cwd: string | undefined
}

export type PathSource = "argument" | "redirect" | "cd" | "program"

export interface PathUse {
  /** As written. */
  readonly input: string
  /**
   * Absolute, with `..` segments kept (Workspace resolves them after the symlinks before them,
   * as the kernel does); lexically normalised only for `cd`, which bash applies logically.
   */
  readonly path: string
  readonly access: Access
  readonly kind: Kind
  readonly source: PathSource
  /** The command that touches it. */
  readonly command: string
}

export interface Analysis {
  readonly source: string
  readonly cwd: string
  readonly commands: ReadonlyArray<Command>
  /** Every command's patterns, deduplicated, in order. */
  readonly patterns: ReadonlyArray<string>
  readonly always: ReadonlyArray<string>
  readonly paths: ReadonlyArray<PathUse>
  /** Why the command cannot be fully analysed; empty when it can. */
  readonly unsupported: ReadonlyArray<string>
}
