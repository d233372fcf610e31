/**
 * zod for the built library packages: their bundles import it from here, one bundled file shared
 * by all of them, instead of the package's ~95 modules (each one resolved, read and linked at
 * start-up). The sources import "zod" itself; zod keeps its global settings and registry on
 * `globalThis`, so this copy and a user's agree on them.
 */
export * from "zod"
