// k6 gives every script a global console (log, info, warn, error, debug), but
// @types/k6 leaves it to lib "dom", which would also declare browser globals k6
// does not have (window, document, fetch's DOM types). This declares only the
// console k6 has.
export {};

declare global {
  interface K6Console {
    log(...data: unknown[]): void;
    info(...data: unknown[]): void;
    warn(...data: unknown[]): void;
    error(...data: unknown[]): void;
    debug(...data: unknown[]): void;
  }
  var console: K6Console;
}
