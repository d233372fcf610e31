/** What the model is told about apply_patch (every claim is tested behaviour). */
export const APPLY_PATCH = `Use the \`apply_patch\` tool to edit files. Your patch language is a stripped-down, file-oriented diff format designed to be easy to parse and safe to apply. You can think of it as a high-level envelope:

*** Begin Patch
[ one or more file sections ]
*** End Patch

Within that envelope, you get a sequence of file operations.
You MUST include a header to specify the action you are taking.
Each operation starts with one of three headers:

*** Add File: <path> - create a new file. Every following line is a + line (the initial contents).
*** Delete File: <path> - remove an existing file. Nothing follows.
*** Update File: <path> - patch an existing file in place (optionally with a rename).

May be immediately followed by *** Move to: <new path> if you want to rename the file.
Then one or more "hunks", each introduced by @@ (optionally followed by a hunk header, such as a function or class line that appears above the change).
Within a hunk each line starts with:
- " " (a space) for context lines that stay,
- "-" for lines to remove,
- "+" for lines to add.
Show 3 lines of context above and below each change. Use \`@@ <line>\` to say which function or class a change is in when the context alone is not unique.
*** End of File after a hunk's lines anchors that hunk at the end of the file.

Example:

*** Begin Patch
*** Add File: hello.txt
+Hello world
*** Update File: src/app.py
*** Move to: src/main.py
@@ def greet():
-print("Hi")
+print("Hello, world!")
*** Delete File: obsolete.txt
*** End Patch

Rules:
- You must prefix new lines with \`+\` even when creating a new file.
- File paths are relative to the workspace root (or absolute). Never use line numbers.
- The patch is applied all or nothing: if any hunk does not apply (its context is not found, a file to update or delete is missing), no file is changed and the error names the hunk and its line in the patch.
- Context may differ from the file in trailing or surrounding whitespace and in typographic punctuation; the file's own text is kept for context lines. Line endings, BOM and encoding of updated files are kept.
- The output lists the changed files as \`A path\` (added), \`M path\` (updated or moved) and \`D path\` (deleted).`
