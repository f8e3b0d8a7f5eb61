// Package plot draws the figures of analyze with gonum/plot: the ECDF of one or
// more groups of samples (a post-step line, P50/P90/P99 marked, an optional
// log-scale x axis and DKW confidence band), the drift of percentiles over
// time windows, the capacity curves, and stacked horizontal bars of the time
// per stage ([Stages]). Figures are written as PNG or SVG.
//
// The package knows nothing of k6 or its JSON: callers pass sorted samples in
// the unit they want on the axis (k6 Trend values are milliseconds) and the
// percentile values to mark, computed with stats so that a plot and a
// table agree to the last digit.
//
// # Reducing millions of points
//
// An ECDF of n samples has n steps; a figure a few hundred pixels high cannot
// show more than a few thousand of them. [ReduceECDF] keeps the samples at the
// ranks ⌊j·n/k⌋ for j = 0…k−1, the largest sample, and any extra values the
// caller asks for (the marked percentiles), each at its exact ECDF height
// (ties counted in full). The reduced curve G never lies above the full ECDF F
// and F(x) − G(x) < 1/k for every x: with k at least the figure's height in
// pixels the two curves are the same picture. k is [DefaultPoints] (2048) or
// more.
package plot
