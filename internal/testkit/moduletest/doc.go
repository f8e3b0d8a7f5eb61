// Package moduletest holds the tests of llmstream.js, the k6 JavaScript module.
// They run the module under k6sim (sobek with Go stand-ins for k6's APIs):
// first against a fake helper that answers per docs/helper-api.md with records
// the tests choose, then against the real helper and mock LLM for all three
// dialects and the mock's faults. The package has no non-test code.
package moduletest
