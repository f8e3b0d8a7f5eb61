// Package output writes analyze's results (package result) as an aligned
// text table, Markdown (for CI step summaries), JSON in the documented,
// versioned schema, and JUnit XML for checks. Each writer only renders: what
// a summary, a check or a comparison says is decided once, in package result.
package output
