/**
 * The parts of web-tree-sitter's syntax tree the bash analysis uses, declared here. The analysis
 * works on web-tree-sitter's own objects (they fit these interfaces); naming these instead of the
 * library's types keeps the library out of this package's public declarations, which a consumer
 * type-checks with `skipLibCheck: false` (web-tree-sitter's declarations need `@types/emscripten`,
 * which it does not depend on).
 */

export interface Node {
  readonly type: string
  readonly text: string
  readonly isNamed: boolean
  readonly isMissing: boolean
  readonly hasError: boolean
  readonly startIndex: number
  readonly endIndex: number
  readonly childCount: number
  readonly parent: Node | null
  readonly firstChild: Node | null
  readonly children: ReadonlyArray<Node>
  readonly namedChildren: ReadonlyArray<Node | null>
  childForFieldName(fieldName: string): Node | null
  childrenForFieldName(fieldName: string): ReadonlyArray<Node>
  descendantsOfType(types: string | Array<string>): ReadonlyArray<Node>
  walk(): TreeCursor
}

export interface TreeCursor {
  readonly nodeType: string
  readonly currentNode: Node
  readonly nodeIsNamed: boolean
  readonly currentFieldName: string | null
  readonly startIndex: number
  readonly endIndex: number
  gotoFirstChild(): boolean
  gotoNextSibling(): boolean
  reset(node: Node): void
  delete(): void
}

export interface Tree {
  readonly rootNode: Node
  walk(): TreeCursor
  delete(): void
}
