package main

import "embed"

// moduleFiles holds the JavaScript module and its typings as built into the
// binary, so `init` can hand them to users who do not have this repository.
//
//go:embed llmstream.js llmstream.d.ts
var moduleFiles embed.FS

// starterFiles holds the starter scripts `init` writes (they import ./llmstream.js).
//
//go:embed starter/script.js starter/script.ts
var starterFiles embed.FS
