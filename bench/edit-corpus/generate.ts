/**
 * Generates `cases.json`: edits a model means to make on the files in `files/`, quoted with the
 * mistakes models make (the corpus is checked in; rerun this after changing a spec).
 *
 * Each spec names the exact text the model means (`old`, in the file once) and what it should
 * become (`new`); each mistake distorts what the model actually sends. `expect: "apply"` cases
 * have one right answer (the intended edit, at the file's own indentation and line endings);
 * `expect: "refuse"` cases have none a tool can know (the quote is ambiguous, elided, or claims a
 * value the file does not hold), so any write is unsafe.
 *
 * Run: ./node_modules/.bin/node bench/edit-corpus/generate.ts
 */
import { readFileSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const here = dirname(fileURLToPath(import.meta.url))
const read = (file: string) => readFileSync(join(here, "files", file), "utf8")

type Mistake =
  | "none"
  | "dedent" // the block quoted without its indentation
  | "indent+2" // quoted two spaces deeper
  | "tabs-as-spaces" // tab indentation retyped as 4 spaces
  | "trailing-spaces-dropped" // the file has trailing spaces, the quote does not
  | "escaped" // newlines and quotes sent escaped, as in a JSON string
  | "blank-lines-dropped" // blank lines inside the block left out
  | "typo-in-context" // a small typo in a line the edit does not change
  | "crlf-as-lf" // the file is CRLF, the quote LF (every stock.cs case)
  | "line-prefixes" // the `N: ` prefixes of the read output pasted along
  | "collapsed-spaces" // aligned columns quoted with single spaces
  | "wrong-value-in-context" // a line the edit does not change, with a value the file does not hold
  | "elided-middle" // the middle of the block replaced by a `...` comment
  | "stale-edited-line" // the line being edited no longer reads as quoted

interface Spec {
  readonly file: string
  readonly name: string
  readonly old: string
  readonly new: string
  readonly mistakes: ReadonlyArray<Mistake>
}

const lines = (s: string) => s.split("\n")
const indentOf = (l: string) => /^[ \t]*/.exec(l)![0]

/** The first line (not the first or last) that the edit leaves as it is and `test` accepts. */
const keptLine = (spec: Spec, test: (line: string) => boolean): number => {
  const old = lines(spec.old)
  const fresh = new Set(lines(spec.new))
  const i = old.findIndex((l, k) => k > 0 && k < old.length - 1 && fresh.has(l) && test(l))
  if (i === -1) throw new Error(`${spec.name}: no context line to distort`)
  return i
}

const mutate = (text: string, mistake: Mistake, role: "old" | "new", spec: Spec): string => {
  const ls = lines(text)
  switch (mistake) {
    case "none":
    case "crlf-as-lf":
      return text
    case "dedent": {
      const min = Math.min(...ls.filter((l) => l.trim()).map((l) => indentOf(l).length))
      return ls.map((l) => l.slice(Math.min(min, indentOf(l).length))).join("\n")
    }
    case "indent+2":
      return ls.map((l) => (l.trim() ? "  " + l : l)).join("\n")
    case "tabs-as-spaces":
      return ls.map((l) => indentOf(l).replaceAll("\t", "    ") + l.trimStart()).join("\n")
    case "trailing-spaces-dropped":
      return ls.map((l) => l.trimEnd()).join("\n")
    case "escaped":
      return text.replaceAll("\\", "\\\\").replaceAll('"', '\\"').replaceAll("\n", "\\n")
    case "blank-lines-dropped":
      return ls.filter((l) => l.trim()).join("\n")
    case "line-prefixes": {
      const start = lines(read(spec.file).replaceAll("\r\n", "\n").slice(0, read(spec.file).replaceAll("\r\n", "\n").indexOf(spec.old))).length
      return ls.map((l, i) => `${start + i}: ${l}`).join("\n")
    }
    case "collapsed-spaces":
      return ls.map((l) => indentOf(l) + l.trimStart().replace(/ {2,}/g, " ")).join("\n")
    case "typo-in-context": {
      // Two adjacent letters swapped in the first long word of a line the edit keeps.
      const i = keptLine(spec, (l) => /[A-Za-z]{5,}/.test(l))
      ls[i] = ls[i]!.replace(/([A-Za-z])([A-Za-z])([A-Za-z]{3,})/, "$2$1$3")
      return ls.join("\n")
    }
    case "wrong-value-in-context": {
      // A number, a string or a name in a line the edit keeps, remembered as something else.
      const i = keptLine(spec, (l) => /\d|"|[a-z]{4,}/.test(l))
      const l = ls[i]!
      ls[i] = /\d/.test(l)
        ? l.replace(/\d+/, (d) => String(Number(d) * 2 + 7))
        : /"[^"]*"/.test(l)
        ? l.replace(/"[^"]*"/, '"other"')
        : l.replace(/[a-z]{4,}/, "finished")
      return ls.join("\n")
    }
    case "elided-middle": {
      // The unchanged lines between the first line and the edit replaced by a comment.
      const edited = lines(spec.old).findIndex((l, k) => l !== lines(spec.new)[k])
      return [ls[0]!, `${indentOf(ls[1]!)}// ... unchanged ...`, ...ls.slice(Math.max(2, edited))].join("\n")
    }
    case "stale-edited-line": {
      // The line being edited is remembered with another name (old only).
      if (role === "new") return text
      const i = lines(spec.old).findIndex((l, k) => l !== lines(spec.new)[k])
      ls[i] = ls[i]!.replace(/[A-Za-z_]\w+/, "renamed")
      return ls.join("\n")
    }
  }
}

const specs: ReadonlyArray<Spec> = [
  {
    file: "server.ts",
    name: "router-dispatch-status",
    old: '    if (route === undefined) {\n      res.statusCode = 404\n      res.end("not found")\n      return\n    }',
    new: '    if (route === undefined) {\n      res.statusCode = 404\n      res.setHeader("content-type", "text/plain")\n      res.end("not found")\n      return\n    }',
    mistakes: ["none", "dedent", "indent+2", "escaped", "typo-in-context", "wrong-value-in-context", "line-prefixes", "elided-middle"]
  },
  {
    file: "server.ts",
    name: "read-body-limit",
    old: "  for await (const chunk of req) {\n    size += chunk.length\n    if (size > MAX_BODY_BYTES) {\n      throw new Error(\"body too large\")\n    }\n    chunks.push(chunk)\n  }",
    new: "  for await (const chunk of req) {\n    size += chunk.length\n    if (size > MAX_BODY_BYTES) {\n      throw new Error(`body too large: ${size} bytes`)\n    }\n    chunks.push(chunk)\n  }",
    mistakes: ["dedent", "indent+2", "escaped", "typo-in-context", "wrong-value-in-context", "stale-edited-line"]
  },
  {
    file: "server.ts",
    name: "json-route-header",
    old: '  handler: async (_req, res) => {\n    const value = await load()\n    res.setHeader("content-type", "application/json")   \n    res.end(JSON.stringify(value))\n  }',
    new: '  handler: async (_req, res) => {\n    const value = await load()\n    res.setHeader("content-type", "application/json; charset=utf-8")\n    res.end(JSON.stringify(value))\n  }',
    mistakes: ["trailing-spaces-dropped", "dedent", "typo-in-context"]
  },
  {
    file: "server.ts",
    name: "constants",
    old: "const DEFAULT_PORT    = 8080\nconst MAX_BODY_BYTES  = 1024 * 1024\nconst REQUEST_TIMEOUT = 30_000",
    new: "const DEFAULT_PORT    = 8080\nconst MAX_BODY_BYTES  = 4 * 1024 * 1024\nconst REQUEST_TIMEOUT = 30_000",
    mistakes: ["collapsed-spaces", "none"]
  },
  {
    file: "server.ts",
    name: "metrics-snapshot",
    old: "  snapshot(): { requests: number; failures: number; rate: number } {\n    const rate = this.requests === 0 ? 0 : this.failures / this.requests\n    return { requests: this.requests, failures: this.failures, rate }\n  }\n\n  reset(): void {",
    new: "  snapshot(): { requests: number; failures: number; rate: number } {\n    const rate = this.requests === 0 ? 0 : this.failures / this.requests\n    return { requests: this.requests, failures: this.failures, rate: Math.round(rate * 1000) / 1000 }\n  }\n\n  reset(): void {",
    mistakes: ["dedent", "blank-lines-dropped", "escaped", "indent+2"]
  },
  {
    file: "server.ts",
    name: "status-500-duplicate",
    old: '  res.statusCode = 500\n  res.end("internal error")\n}',
    new: '  res.statusCode = 503\n  res.end("internal error")\n}',
    // Quoted two spaces deeper it lines up with this block and with the one in Router.dispatch.
    mistakes: ["indent+2"]
  },
  {
    file: "tasks.py",
    name: "complete",
    old: '    def complete(self) -> None:\n        if self.done:\n            log.warning("task %s already done", self.id)\n            return\n        self.done = True\n        log.info("task %s completed", self.id)',
    new: '    def complete(self) -> None:\n        if self.done:\n            log.warning("task %s already done", self.id)\n            return\n        self.done = True\n        log.info("task %s completed: %s", self.id, self.title)',
    mistakes: ["none", "dedent", "indent+2", "escaped", "typo-in-context", "wrong-value-in-context", "line-prefixes"]
  },
  {
    file: "tasks.py",
    name: "load",
    old: '        for item in data:\n            task = Task(item["id"], item["title"], item["done"], item.get("tags", []))\n            self.tasks[task.id] = task\n        self.next_id = max(self.tasks, default=0) + 1',
    new: '        for item in data:\n            task = Task(item["id"], item["title"], item.get("done", False), item.get("tags", []))\n            self.tasks[task.id] = task\n        self.next_id = max(self.tasks, default=0) + 1',
    mistakes: ["dedent", "escaped", "stale-edited-line"]
  },
  {
    file: "tasks.py",
    name: "summarize",
    old: '    lines = [f"{len(pending)} pending, {len(completed)} completed"]\n    for task in pending:\n        lines.append(f"- [ ] {task.title}")\n    for task in completed:\n        lines.append(f"- [x] {task.title}")\n    return "\\n".join(lines)',
    new: '    lines = [f"{len(pending)} pending, {len(completed)} completed"]\n    for task in pending:\n        lines.append(f"- [ ] {task.title}")\n    for task in completed:\n        lines.append(f"- [x] ~~{task.title}~~")\n    return "\\n".join(lines)',
    mistakes: ["dedent", "elided-middle", "typo-in-context"]
  },
  {
    file: "tasks.py",
    name: "pending-and-completed",
    old: "    def pending(self) -> list[Task]:\n        return [t for t in self.tasks.values() if not t.done]\n\n    def completed(self) -> list[Task]:\n        return [t for t in self.tasks.values() if t.done]",
    new: "    def pending(self) -> list[Task]:\n        return sorted((t for t in self.tasks.values() if not t.done), key=lambda t: t.id)\n\n    def completed(self) -> list[Task]:\n        return [t for t in self.tasks.values() if t.done]",
    mistakes: ["blank-lines-dropped", "dedent"]
  },
  {
    file: "main.go",
    name: "parse-args-default",
    old: '\t\tdefault:\n\t\t\treturn cfg, fmt.Errorf("unknown argument %q", arg)\n\t\t}',
    new: '\t\tdefault:\n\t\t\treturn cfg, fmt.Errorf("unknown argument %q (try --name=NAME)", arg)\n\t\t}',
    mistakes: ["none", "tabs-as-spaces", "dedent", "escaped"]
  },
  {
    file: "main.go",
    name: "greet-verbose",
    old: '\tgreeting := fmt.Sprintf("hello, %s", cfg.Name)\n\tif cfg.Verbose {\n\t\tgreeting += fmt.Sprintf(" (port %d)", cfg.Port)\n\t}\n\treturn greeting',
    new: '\tgreeting := fmt.Sprintf("hello, %s", cfg.Name)\n\tif cfg.Verbose {\n\t\tgreeting += fmt.Sprintf(" (port %d)", cfg.Port)\n\t\tgreeting += "!"\n\t}\n\treturn greeting',
    mistakes: ["tabs-as-spaces", "typo-in-context", "wrong-value-in-context", "elided-middle"]
  },
  {
    file: "main.go",
    name: "average",
    old: "\tif len(values) == 0 {\n\t\treturn 0\n\t}\n\treturn float64(sum(values)) / float64(len(values))",
    new: "\tif len(values) == 0 {\n\t\treturn math.NaN()\n\t}\n\treturn float64(sum(values)) / float64(len(values))",
    mistakes: ["tabs-as-spaces", "dedent", "stale-edited-line"]
  },
  {
    file: "stock.cs",
    name: "add-null-check",
    old: "            if (item == null)\n            {\n                throw new ArgumentNullException(nameof(item));\n            }\n            items.Add(item);",
    new: "            if (item == null)\n            {\n                throw new ArgumentNullException(nameof(item));\n            }\n            if (item.Quantity < 0)\n            {\n                throw new ArgumentOutOfRangeException(nameof(item));\n            }\n            items.Add(item);",
    mistakes: ["crlf-as-lf", "dedent", "typo-in-context", "escaped"]
  },
  {
    file: "stock.cs",
    name: "total",
    old: "        public decimal Total()\n        {\n            return Quantity * Price;\n        }",
    new: "        public decimal Total()\n        {\n            return Math.Round(Quantity * Price, 2);\n        }",
    mistakes: ["crlf-as-lf", "indent+2", "dedent"]
  },
  {
    file: "stock.cs",
    name: "foreach-duplicate",
    old: "            foreach (var item in items)\n            {",
    new: "            foreach (var item in items.ToArray())\n            {",
    mistakes: ["crlf-as-lf"]
  }
]

/** Cases whose quote cannot identify one right answer. */
const REFUSE: ReadonlySet<Mistake> = new Set(["wrong-value-in-context", "elided-middle", "stale-edited-line"])

const cases = specs.flatMap((spec) => {
  const content = read(spec.file).replaceAll("\r\n", "\n")
  const at = content.indexOf(spec.old)
  if (at === -1) throw new Error(`${spec.file}/${spec.name}: old text not in the file`)
  const duplicate = content.indexOf(spec.old, at + 1) !== -1 || spec.name.endsWith("duplicate")
  const startLine = content.slice(0, at).split("\n").length
  const endLine = startLine + spec.old.split("\n").length - 1
  return spec.mistakes.map((mistake) => {
    const refuse = REFUSE.has(mistake) || duplicate
    return {
      id: `${spec.file}/${spec.name}/${mistake}`,
      file: spec.file,
      mistake: duplicate ? "ambiguous-quote" : mistake,
      oldString: mutate(spec.old, mistake, "old", spec),
      newString: mutate(spec.new, mistake, "new", spec),
      expect: refuse ? "refuse" : "apply",
      // The region the model means (1-based, inclusive) and the exact text it should end up as.
      target: { startLine, endLine },
      intended: refuse ? undefined : { old: spec.old, new: spec.new }
    }
  })
})

writeFileSync(join(here, "cases.json"), JSON.stringify({ generatedBy: "bench/edit-corpus/generate.ts", cases }, null, 2) + "\n")
console.log(`${cases.length} cases written`)
