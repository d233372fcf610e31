/** The package version; a test keeps it equal to package.json's (which lies outside the `src` rootDir tsc compiles). */
export const VERSION = "0.1.0"
