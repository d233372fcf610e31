/**
 * The limits the tools enforce, each declared once: the tools apply them and their descriptions
 * interpolate them, so what the model is told is what the code does.
 */

/**
 * Files bigger than this are not edited in memory (edit, multiedit, write over an existing file,
 * apply_patch updates): decoding, normalising and diffing would hold several copies at once. Read
 * pages through them instead; bash (sed, a script) can change them.
 */
export const MAX_EDIT_BYTES = 10 * 1024 * 1024

/** Most places an error about an ambiguous match (edit, apply_patch) lists; it counts the rest. */
export const MAX_LISTED = 10

/** Lines read returns when no limit is given. */
export const READ_LIMIT = 2000
/** Longest line read and grep show; longer lines are cut. */
export const MAX_LINE_LENGTH = 2000
/** Most bytes of a file one read returns. */
export const MAX_READ_BYTES = 50 * 1024

/** Most matches grep shows. */
export const MATCH_LIMIT = 100
/** Most files glob returns. */
export const FILE_LIMIT = 100
/** Most files list shows. */
export const LIST_LIMIT = 100

/** The most bytes of a response webfetch reads; past it the fetch fails. */
export const MAX_RESPONSE_BYTES = 5 * 1024 * 1024
export const DEFAULT_TIMEOUT_SECONDS = 30
export const MAX_TIMEOUT_SECONDS = 120
/** Same-host redirects webfetch follows before it gives up. */
export const MAX_REDIRECTS = 5
/** The most bytes of an error response's body (4xx, 5xx) webfetch shows. */
export const MAX_ERROR_BODY_BYTES = 8 * 1024

/** How long a search may take before it fails. */
export const SEARCH_TIMEOUT_SECONDS = 30
export const DEFAULT_NUM_RESULTS = 8
export const MAX_NUM_RESULTS = 100
export const MIN_TOKENS = 1000
export const MAX_TOKENS = 50000
export const DEFAULT_TOKENS = 5000

/** Longest question header, in characters. */
export const MAX_HEADER = 30

/** Longest option label, in characters: a label is a few words the user picks from a list. */
export const MAX_LABEL = 60

/** Most calls one batch runs; the rest are refused. */
export const BATCH_LIMIT = 25
/** How many calls of a batch run at the same time. */
export const BATCH_CONCURRENCY = 8
/** Tools a batch may not call. */
export const BATCH_DISALLOWED: ReadonlyArray<string> = ["batch"]
/** Most files of a skill's folder listed with its content. */
export const SKILL_FILES_LIMIT = 10
