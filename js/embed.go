// Package js carries the k6 JavaScript module (llmstream.js and the files it
// imports), its TypeScript declarations and the starter scripts, so the
// xk6-llmstream binary can hand them to users who do not have this
// repository (`xk6-llmstream init`).
package js

import "embed"

// Module holds llmstream.js, the files under lib/ it imports and llmstream.d.ts.
//
//go:embed llmstream.js llmstream.d.ts
var Module embed.FS

// Starter holds the starter scripts `init` writes (they import ./llmstream.js).
//
//go:embed starter/script.js starter/script.ts
var Starter embed.FS
