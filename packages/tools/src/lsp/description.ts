/** What the model reads about the lsp tool. */

export const OPERATIONS = ["goToDefinition", "findReferences", "hover", "documentSymbol"] as const

export const LSP = `Ask the language server about code: where a symbol is defined, where it is used, its type and documentation, or the symbols a file declares.

Operations:
- goToDefinition: where the symbol at the position is defined
- findReferences: every use of the symbol at the position (its declaration included)
- hover: the type and documentation of the symbol at the position
- documentSymbol: the classes, functions, variables… the file declares, nested as in the file (the position is not used)

line and character are 1-based, as editors and the read tool show them. Locations come back as path:line:character.
Servers run for TypeScript and JavaScript files (.ts, .tsx, .js, .jsx, .mjs, .cjs); the first call on a project may take a few seconds while the server starts.`
