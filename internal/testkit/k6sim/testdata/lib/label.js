export function label() { return 'from-lib'; }
