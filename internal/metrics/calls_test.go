package metrics

import (
	"reflect"
	"testing"

	"github.com/llmstream/xk6-llmstream/internal/records"
)

// TestCallSamples: an embeddings or rerank record has its own metrics, never
// generation's; input tokens only when the server reported them on a
// successful call; a failure counts in the call's own failure rate.
func TestCallSamples(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		rec  records.Record
		want []Series
	}{
		{"embed", records.Record{Kind: "embed", StartNS: 1, E2ENS: 12_345_678, InputTokens: 40, TokenSource: "usage", Batch: 8},
			[]Series{{Metric: EmbedDuration, Values: []float64{12.346}}, {Metric: EmbedInputTokens, Values: []float64{40}}, {Metric: EmbedBatchSize, Values: []float64{8}}, {Metric: EmbedFailed, Values: []float64{0}}}},
		{"rerank without usage", records.Record{Kind: "rerank", StartNS: 1, E2ENS: 2_000_000, TokenSource: "none", Batch: 5},
			[]Series{{Metric: RerankDuration, Values: []float64{2}}, {Metric: RerankDocuments, Values: []float64{5}}, {Metric: RerankFailed, Values: []float64{0}}}},
		{"embed failed", records.Record{Kind: "embed", StartNS: 1, E2ENS: 1_000_000, InputTokens: 3, TokenSource: "usage", Batch: 2, Error: &records.Error{Kind: "http_5xx"}},
			[]Series{{Metric: EmbedDuration, Values: []float64{1}}, {Metric: EmbedBatchSize, Values: []float64{2}}, {Metric: EmbedFailed, Values: []float64{1}}}},
		{"never sent", records.Record{Kind: "rerank", Error: &records.Error{Kind: "invalid_request"}},
			[]Series{{Metric: RerankFailed, Values: []float64{1}}}},
	} {
		got := FromRecord(&tc.rec, &Options{SLO: &SLO{}, Stages: true})
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
		for _, s := range got {
			if _, ok := Lookup(s.Metric); !ok {
				t.Errorf("%s: %s is not a builtin metric", tc.name, s.Metric)
			}
		}
	}
}
