// The module's release version: the helper refuses a request from another
// release's module (helper.ModuleVersion), and internal/version's test holds it
// to the binaries' version.

/** The module's version. */
export const VERSION = '0.2.0';
