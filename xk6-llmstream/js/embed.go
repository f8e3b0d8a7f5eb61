// Package js carries the k6 JavaScript module (the llmstream.js entry and the
// files under lib/ it imports), its TypeScript declarations and the starter
// scripts, so the xk6-llmstream binary can hand them to users who do not have
// this repository (`xk6-llmstream init`).
package js

import "embed"

// Module holds the entry llmstream.js, every file under lib/ (the module by
// concern, imported by relative path) and llmstream.d.ts.
//
//go:embed llmstream.js llmstream.d.ts lib
var Module embed.FS

// Starter holds the starter scripts `init` writes (they import ./llmstream.js).
//
//go:embed starter
var Starter embed.FS
