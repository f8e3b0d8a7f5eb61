// open() and import.meta.resolve called from a module that is not the main script.
export function readText(p) { return open(p); }
export function here(p) { return import.meta.resolve(p); }
