/**
 * Makes bundled JavaScript pure ASCII. Node decodes a module's source into a V8 string: one byte
 * per character when every byte is ASCII, two bytes for the whole file as soon as one is not, and
 * the two-byte file is slower to decode (1.6 against 0.5 ms for a 450 KB bundle here), hash and
 * scan. esbuild already escapes
 * strings and templates; the characters it leaves are in comments, which it keeps, and in regular
 * expressions, where an escape would change the expression's `source`.
 *
 * Every other character becomes a `\uXXXX` escape. The file is rewritten only if that changed
 * nothing but comments: its whitespace-minified form (comments dropped) must read the same before
 * and after. Otherwise the build fails naming the file and the spot: a character in code is to be
 * written as an escape in the source. (Source-map columns after an escaped character in a
 * `/* … *\/` comment shift by a few places on that one line.)
 */
import { transform } from "esbuild"
import { readFileSync, writeFileSync } from "node:fs"

const NON_ASCII = /[^\x00-\x7f]/g
/** Not global: `test` keeps no position between calls. */
const HAS_NON_ASCII = /[^\x00-\x7f]/

const escaped = (text) => text.replace(NON_ASCII, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)

const minified = async (text, file) =>
  (await transform(text, { minifyWhitespace: true, format: file.endsWith(".cjs") ? "cjs" : "esm", loader: "js" })).code

/** Rewrites each of `files` (.js, .cjs; others are skipped) that has non-ASCII characters. */
export const asciiOutput = async (files) => {
  await Promise.all(files.filter((file) => /\.c?js$/.test(file)).map(async (file) => {
    const text = readFileSync(file, "utf8")
    if (!HAS_NON_ASCII.test(text)) return
    const ascii = escaped(text)
    const [before, after] = await Promise.all([minified(text, file), minified(ascii, file)])
    if (before !== after) {
      let at = 0
      while (before[at] === after[at]) at++
      throw new Error(
        `${file}: a non-ASCII character in code, not in a comment (near ${JSON.stringify(before.slice(Math.max(0, at - 40), at + 20))}); ` +
          "write it as a \\u escape in the source"
      )
    }
    writeFileSync(file, ascii)
  }))
}
