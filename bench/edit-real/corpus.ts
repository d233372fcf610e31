/** The real-file edit corpus: its sources, case shape and the parse check (shared by the generator and the bench). */
import { createHash } from "node:crypto"
import { existsSync, readdirSync } from "node:fs"
import { join } from "node:path"
import { stripTypeScriptTypes } from "node:module"

export type Language = "ts" | "js" | "py" | "yaml"

export interface Source {
  /** Relative to the repository root. */
  readonly path: string
  readonly language: Language
}

const pnpm = "node_modules/.pnpm"
export const SOURCES: ReadonlyArray<Source> = [
  { path: `${pnpm}/effect@4.1.0/node_modules/effect/src/Cron.ts`, language: "ts" },
  { path: `${pnpm}/effect@4.1.0/node_modules/effect/src/Duration.ts`, language: "ts" },
  { path: `${pnpm}/effect@4.1.0/node_modules/effect/src/Graph.ts`, language: "ts" },
  { path: `${pnpm}/zod@4.6.7/node_modules/zod/src/v4/core/api.ts`, language: "ts" },
  { path: `${pnpm}/@ai-sdk+provider-utils@5.0.81_zod@4.6.7/node_modules/@ai-sdk/provider-utils/dist/index.js`, language: "js" },
  { path: `${pnpm}/@ai-sdk+gateway@4.0.146_zod@4.6.7/node_modules/@ai-sdk/gateway/dist/index.js`, language: "js" },
  { path: `${pnpm}/debug@4.4.3/node_modules/debug/src/common.js`, language: "js" },
  { path: `${pnpm}/json-schema@0.4.0/node_modules/json-schema/lib/validate.js`, language: "js" },
  { path: `${pnpm}/get-intrinsic@1.3.1/node_modules/get-intrinsic/index.js`, language: "js" },
  { path: "bench/edit-real/python/textwrap.py", language: "py" },
  { path: "bench/edit-real/python/shlex.py", language: "py" },
  { path: "bench/edit-real/python/configparser.py", language: "py" },
  { path: `${pnpm}/fast-uri@3.1.9/node_modules/fast-uri/.github/workflows/ci.yml`, language: "yaml" },
  { path: "bench/edit-real/yaml/pnpm-lock.yaml", language: "yaml" }
]

/**
 * A source's file in this checkout: its path, or the same package's directory in `.pnpm` under
 * another peer-dependency suffix (`debug@4.4.3_supports-color@5.5.0`), as installs name it
 * differently. The recorded SHA-256 still decides whether it is the same file.
 */
export const sourceFile = (repo: string, path: string): string => {
  const direct = join(repo, path)
  const m = /^(node_modules\/\.pnpm\/)([^/]+)(\/.*)$/.exec(path)
  if (existsSync(direct) || m === null) return direct
  const dir = readdirSync(join(repo, m[1]!)).find((d) => d.startsWith(`${m[2]}_`))
  return dir === undefined ? direct : join(repo, m[1]!, dir, m[3]!)
}

export type Mistake =
  | "none"
  | "dedent" // quoted without the block's common indentation
  | "indent-deeper" // quoted one level (2 spaces or a tab) deeper
  | "tabs-as-spaces" // tab indentation retyped as 4 spaces
  | "spaces-as-tabs" // space indentation retyped as tabs
  | "trailing-whitespace" // spaces after some quoted lines
  | "blank-lines-dropped" // the region's blank lines left out of the quote
  | "blank-line-added" // a blank line the file does not have
  | "json-escaped" // the quote sent JSON-escaped (\n, \t, \")
  | "line-numbers" // the read tool's `N: ` prefixes pasted along
  | "crlf-file" // the file has CRLF endings, the quote LF
  | "changed-identifier" // negative: a line the quote claims, with another identifier
  | "changed-number" // negative: a line the quote claims, with another number
  | "occurs-twice" // negative: the quoted text is in the file twice
  | "cut-off-last-line" // the quote stops inside its last line (newString has that line whole, or cut alike)
  | "curly-quotes" // the quote's " and ' retyped as “ ” ‘ ’
  | "curly-quotes-twice" // negative: a block that occurs twice, quoted with curly quotes
  | "placeholder" // negative: newString has a bare `...` line for lines of the quote

export interface Case {
  readonly id: string
  readonly source: number
  readonly mistake: Mistake
  /** How newString was written: at the quote's form, at the file's (clean), or none (negative). */
  readonly newForm: "quote" | "file" | "n/a"
  readonly negative: boolean
  /** The file is used with CRLF endings. */
  readonly crlf: boolean
  /** 0-based first line and line count of the region in the file (LF lines). */
  readonly start: number
  readonly count: number
  readonly oldString: string
  readonly newString: string
  /** The region's lines after the intended edit (positives). */
  readonly expected: ReadonlyArray<string>
}

export const sha256 = (text: string) => createHash("sha256").update(text).digest("hex")

/**
 * Whether TypeScript (or JavaScript) source parses: Node's built-in TypeScript parser (swc, the
 * one behind type stripping). The typescript 7 package has no in-process parser to call.
 */
export const parses = (code: string): boolean => {
  try {
    stripTypeScriptTypes(code)
    return true
  } catch {
    return false
  }
}

