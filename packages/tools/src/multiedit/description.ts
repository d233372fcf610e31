/** What the model is told about the multiedit tool; every claim here is tested behaviour. */

export const MULTIEDIT = `Makes several edits to one file in one operation. Prefer it over several edit calls on the same file.

Usage:
- Same rules as the edit tool for every edit: read the file first; each oldString must identify one place (or set replaceAll).
- Edits are applied in order, each on the result of the previous ones: plan them so an earlier edit does not change the text a later one looks for.
- All or nothing: if any edit fails, the error names which one and the file is not changed at all.
- To create a new file, give the first edit an empty oldString and the file content as newString.`
