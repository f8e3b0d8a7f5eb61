// Package report writes analyze's HTML report: a folder with one
// self-contained index.html (CSS inline, every figure inline as SVG, no
// script, font or URL to fetch) and each figure as a PNG beside it, readable
// offline and safe to attach to a CI run.
//
// The page carries a Content-Security-Policy that forbids loading anything
// (default-src 'none'; inline styles and data: images only), so a browser
// reports any accidental reference to an outside resource as a console
// error, which the package's test looks for in headless Chromium.
//
// The package formats and lays out what it is given; it computes nothing.
// Numbers are written as analyze's tables write them (output.Number).
package report
