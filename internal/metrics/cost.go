package metrics

// Prices are a model's prices, in currency units per million tokens.
type Prices struct {
	Input       float64 `json:"input"`
	Output      float64 `json:"output"`
	CachedInput float64 `json:"cached_input"`
}

// Cost is one request's cost in the prices' currency: input tokens not read
// from the cache at the input price, cached ones at the cached price, output
// tokens at the output price.
func (p *Prices) Cost(input, cached, output int) float64 {
	cached = min(max(cached, 0), max(input, 0))
	fresh := max(input, 0) - cached
	return (float64(fresh)*p.Input + float64(cached)*p.CachedInput + float64(max(output, 0))*p.Output) / 1e6
}
