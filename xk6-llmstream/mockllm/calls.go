package mockllm

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/endpoints"
)

// DefaultEmbedDims is the length of the mock's vectors when
// CallLatency.Dims is 0.
const DefaultEmbedDims = 16

// MaxEmbedDims bounds CallLatency.Dims.
const MaxEmbedDims = 1 << 14

// MaxCallInputs bounds the inputs (or documents) of one embeddings or
// rerank request; more is answered 400 naming the limit.
const MaxCallInputs = 4096

// purposeCall is the random stream of a call's latency jitter.
const purposeCall uint64 = 100

// CallLatency is the latency model of the embeddings and rerank endpoints:
// the answer is written Base + PerToken × input tokens after the request
// arrived (the query's tokens count once per document for rerank, as a
// cross-encoder reads query and document together), with Jitter applied,
// seeded by Config.Seed and the request's arrival number. Calls take no
// decode slot; they count as load on the mock's GPU page while they run.
type CallLatency struct {
	Base     time.Duration `json:"base" flag:"calls-base" usage:"embeddings and rerank answers take {DURATION} plus --calls-per-token per input token"`
	PerToken time.Duration `json:"per_token" flag:"calls-per-token" usage:"embeddings and rerank answers take {DURATION} more per input token"`
	Jitter   Jitter        `json:"jitter" flag:"calls-jitter" usage:"lognormal {SIGMA} of the embeddings and rerank latency (0: none)"`
	// Dims is the length of the embedding vectors (0: DefaultEmbedDims).
	Dims int `json:"dims" flag:"embed-dims" usage:"length {N} of the embedding vectors (0: 16)"`
}

func (c *CallLatency) validate() error {
	if err := nonNegative("calls.base", c.Base); err != nil {
		return err
	}
	if err := nonNegative("calls.per_token", c.PerToken); err != nil {
		return err
	}
	if c.Dims < 0 || c.Dims > MaxEmbedDims {
		return fmt.Errorf("calls.dims: %d is not in [0, %d]", c.Dims, MaxEmbedDims)
	}
	return c.Jitter.validate("calls.jitter")
}

// CallTruth is the mock's ground truth of one embeddings or rerank answer,
// in the answer's "x_mock" field: the input tokens it counted, the inputs
// (documents), the modeled latency and its write time.
type CallTruth struct {
	InputTokens int   `json:"input_tokens"`
	Batch       int   `json:"batch"`
	DelayNS     int64 `json:"delay_ns"`
	WriteNS     int64 `json:"write_ns"`
}

// callRequest is what the mock reads of an embeddings or rerank request.
type callRequest struct {
	Model     string          `json:"model"`
	Input     json.RawMessage `json:"input"`
	Texts     json.RawMessage `json:"texts"`
	Documents json.RawMessage `json:"documents"`
	Query     *string         `json:"query"`
	TopN      *int            `json:"top_n"`
}

// serveCall answers one embeddings or rerank request of the endpoint c and,
// with Config.Log, writes its line (kind, batch, the input tokens counted,
// the modeled delay and the write time): every call is in the log, the
// refused ones (401, 400) included.
func (s *Server) serveCall(c endpoints.Call) http.HandlerFunc {
	d := openAIChat
	if strings.HasPrefix(c.Path, "/v2/") {
		d = cohere
	}
	return func(w http.ResponseWriter, r *http.Request) {
		cr := &callRun{s: s, c: c, d: d, w: w, arrival: time.Now(), seq: s.seq.Add(1) - 1}
		s.counters.requests.Add(1)
		if s.log != nil {
			cr.log = &RequestLog{Seq: cr.seq, ArrivalNS: cr.arrival.UnixNano(), Endpoint: r.URL.Path,
				Dialect: c.Dialect, Kind: c.Kind}
		}
		defer cr.done()
		if !s.keyOK(r) {
			s.counters.unauthorized.Add(1)
			s.counters.faults[faultIndex(FaultUnauthorized)].Add(1)
			cr.end(http.StatusUnauthorized, "rejected", "missing or wrong API key")
			cr.fault = FaultUnauthorized
			writeUnauthorized(w, dialectOf(r))
			return
		}
		cr.serve(r)
	}
}

// callRun is one embeddings or rerank request being answered.
type callRun struct {
	s       *Server
	c       endpoints.Call
	d       dialect
	w       http.ResponseWriter
	arrival time.Time
	seq     uint64
	log     *RequestLog // nil without Config.Log
	fault   Fault
	status  int
	outcome string
	errMsg  string
}

func (cr *callRun) end(status int, outcome, msg string) {
	cr.status, cr.outcome, cr.errMsg = status, outcome, msg
}

func (cr *callRun) refuse(status int, kind, msg string) {
	cr.end(status, "rejected", msg)
	writeError(cr.w, cr.d, status, kind, msg)
}

// serve answers an authorized call.
func (cr *callRun) serve(r *http.Request) {
	s, c := cr.s, cr.c
	var req callRequest
	if err := json.NewDecoder(http.MaxBytesReader(cr.w, r.Body, maxBodyBytes)).Decode(&req); err != nil {
		s.counters.badRequests.Add(1)
		cr.refuse(http.StatusBadRequest, "invalid_request", "the request body is not a JSON object: "+err.Error())
		return
	}
	model := req.Model
	if model == "" {
		model = s.cfg.ModelNames()[0]
	}
	if cr.log != nil {
		cr.log.Model = model
	}
	texts, field, err := callTexts(c, &req)
	if err != nil {
		s.counters.badRequests.Add(1)
		cr.refuse(http.StatusBadRequest, "invalid_request", field+": "+err.Error())
		return
	}
	s.calls.Add(1)
	defer s.calls.Add(-1)
	tokens, err := s.callTokens(r.Context(), c.Kind, req.Query, texts)
	if err != nil {
		cr.end(http.StatusInternalServerError, "rejected", "tokenizer: "+err.Error())
		writeError(cr.w, cr.d, http.StatusInternalServerError, "tokenizer", err.Error())
		return
	}
	cl := s.cfg.Calls
	delay := cl.Jitter.apply(cl.Base+time.Duration(tokens)*cl.PerToken, requestRand(s.cfg.Seed, cr.seq, purposeCall))
	if l := cr.log; l != nil {
		l.InputTokens, l.Batch, l.CallDelayNS = tokens, len(texts), int64(delay)
	}
	t := time.NewTimer(time.Until(cr.arrival.Add(delay)))
	select {
	case <-t.C:
	case <-r.Context().Done():
		t.Stop()
		s.counters.clientGone.Add(1)
		cr.end(0, "client_gone", errClientGone.Error())
		return
	case <-s.ctx.Done():
		t.Stop()
		cr.end(0, "client_gone", "server closed")
		return
	}
	truth := CallTruth{InputTokens: tokens, Batch: len(texts), DelayNS: int64(delay), WriteNS: time.Now().UnixNano()}
	if cr.log != nil {
		cr.log.CallWriteNS = truth.WriteNS
	}
	writeJSON(cr.w, http.StatusOK, callAnswer(c, model, &req, texts, truth, s.cfg.Calls.dims()))
	cr.end(http.StatusOK, "ok", "")
	s.counters.completed.Add(1)
}

// done queues the call's log line.
func (cr *callRun) done() {
	l := cr.log
	if l == nil {
		return
	}
	l.Status, l.Outcome, l.Error, l.Fault = cr.status, cr.outcome, cr.errMsg, cr.fault
	if l.Model == "" {
		l.Model = cr.s.cfg.ModelNames()[0]
	}
	l.EndNS = time.Now().UnixNano()
	cr.s.log.put(l)
}

func (c *CallLatency) dims() int {
	if c.Dims == 0 {
		return DefaultEmbedDims
	}
	return c.Dims
}

// callTexts are the inputs (embed) or documents (rerank) of a request, and
// the field they came from.
func callTexts(c endpoints.Call, req *callRequest) ([]string, string, error) {
	field, raw := "input", req.Input
	switch {
	case c.Dialect == "cohere-embed":
		field, raw = "texts", req.Texts
	case c.Kind == "rerank":
		field, raw = "documents", req.Documents
		if raw == nil && c.Path == "/rerank" {
			field, raw = "texts", req.Texts // TEI
		}
		if req.Query == nil {
			return nil, "query", fmt.Errorf("missing: a rerank request needs a query")
		}
	}
	var texts []string
	if len(raw) > 0 && raw[0] == '"' && c.Dialect == "openai-embeddings" {
		var one string
		if err := json.Unmarshal(raw, &one); err != nil {
			return nil, field, err
		}
		return []string{one}, field, nil
	}
	if err := json.Unmarshal(raw, &texts); err != nil || len(texts) == 0 {
		return nil, field, fmt.Errorf("want a non-empty array of strings")
	}
	if len(texts) > MaxCallInputs {
		return nil, field, fmt.Errorf("%d inputs is over the mock's limit of %d", len(texts), MaxCallInputs)
	}
	return texts, field, nil
}

// callTokens counts a call's input tokens with the mock's tokenizer: every
// input for embed; for rerank the query once per document plus each
// document.
func (s *Server) callTokens(ctx context.Context, kind string, query *string, texts []string) (int, error) {
	n := 0
	for _, t := range texts {
		k, err := s.prompts.count(ctx, t)
		if err != nil {
			return 0, err
		}
		n += k
	}
	if kind == "rerank" && query != nil {
		q, err := s.prompts.count(ctx, *query)
		if err != nil {
			return 0, err
		}
		n += q * len(texts)
	}
	return n, nil
}

// count is the tokens of one text (words, or the tokenizer's).
func (c *promptCounter) count(ctx context.Context, t string) (int, error) {
	if c.tok == nil {
		return len(strings.Fields(t)), nil
	}
	ids, err := c.tok.Encode(ctx, t)
	if err != nil {
		return 0, fmt.Errorf("tokenizer %s: %w", c.tok.Name(), err)
	}
	return len(ids), nil
}

// Vector is the mock's embedding of a text: dims floats drawn from a source
// seeded by the text's FNV-1a hash, scaled to unit length. The same text
// always has the same vector.
func Vector(text string, dims int) []float64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(text))
	seed := h.Sum64()
	r := rand.New(rand.NewPCG(seed, splitmix64(seed)))
	v := make([]float64, dims)
	norm := 0.0
	for i := range v {
		v[i] = r.NormFloat64()
		norm += v[i] * v[i]
	}
	norm = math.Sqrt(norm)
	for i := range v {
		v[i] /= norm
	}
	return v
}

// relevance is the mock's rerank score of a document: the cosine of the
// query's and the document's vectors mapped to [0, 1].
func relevance(query, doc string, dims int) float64 {
	a, b := Vector(query, dims), Vector(doc, dims)
	dot := 0.0
	for i := range a {
		dot += a[i] * b[i]
	}
	return (dot + 1) / 2
}

// callAnswer is the body of a call's answer in the endpoint's shape.
func callAnswer(c endpoints.Call, model string, req *callRequest, texts []string, truth CallTruth, dims int) any {
	switch c.Dialect {
	case "openai-embeddings":
		type item struct {
			Object    string    `json:"object"`
			Embedding []float64 `json:"embedding"`
			Index     int       `json:"index"`
		}
		data := make([]item, len(texts))
		for i, t := range texts {
			data[i] = item{"embedding", Vector(t, dims), i}
		}
		return map[string]any{"object": "list", "data": data, "model": model,
			"usage":          map[string]int{"prompt_tokens": truth.InputTokens, "total_tokens": truth.InputTokens},
			GroundTruthField: truth.WriteNS, "x_mock": truth}
	case "cohere-embed":
		vs := make([][]float64, len(texts))
		for i, t := range texts {
			vs[i] = Vector(t, dims)
		}
		return map[string]any{"id": fmt.Sprintf("mock-embed-%d", truth.WriteNS), "embeddings": map[string]any{"float": vs},
			"texts": texts, "response_type": "embeddings_by_type",
			"meta":           map[string]any{"api_version": map[string]string{"version": "2"}, "billed_units": map[string]int{"input_tokens": truth.InputTokens}},
			GroundTruthField: truth.WriteNS, "x_mock": truth}
	}
	type ranked struct {
		Index int     `json:"index"`
		Score float64 `json:"relevance_score"`
	}
	rs := make([]ranked, len(texts))
	for i, t := range texts {
		rs[i] = ranked{i, relevance(*req.Query, t, dims)}
	}
	slices.SortStableFunc(rs, func(a, b ranked) int { return cmp.Compare(b.Score, a.Score) })
	if req.TopN != nil && *req.TopN >= 0 && *req.TopN < len(rs) {
		rs = rs[:*req.TopN]
	}
	if c.Path == "/rerank" && req.Documents == nil { // TEI: [{"index","score"}]
		type teiRanked struct {
			Index int     `json:"index"`
			Score float64 `json:"score"`
		}
		out := make([]teiRanked, len(rs))
		for i, r := range rs {
			out[i] = teiRanked(r)
		}
		return out
	}
	body := map[string]any{"id": fmt.Sprintf("mock-rerank-%d", truth.WriteNS), "results": rs,
		GroundTruthField: truth.WriteNS, "x_mock": truth}
	if c.Dialect == "cohere-rerank" {
		body["meta"] = map[string]any{"api_version": map[string]string{"version": "2"}, "billed_units": map[string]int{"search_units": 1}}
	} else {
		body["model"] = model
		body["usage"] = map[string]int{"total_tokens": truth.InputTokens}
	}
	return body
}
