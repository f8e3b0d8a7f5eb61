package stream

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// The non-streaming dialects: embeddings and rerank. A request of one of
// them is sent as given (no "stream" field) and its JSON answer read whole;
// the Record has no TTFT, TPOT or ITL, and says what the call was (Kind),
// how many inputs it carried (Batch) and the input tokens the server
// reported (InputTokens with TokenSource "usage", else TokenSource "none").
const (
	// OpenAIEmbeddings is POST /v1/embeddings (OpenAI, vLLM, TEI's OpenAI
	// route, ollama's /v1): {"input": string | [string…], "model"} →
	// {"data":[{"embedding":[…],"index":i}…],"usage":{"prompt_tokens"}}.
	OpenAIEmbeddings Dialect = "openai-embeddings"
	// CohereEmbed is Cohere's POST /v2/embed: {"texts":[…] | "inputs":[…],
	// "model","input_type","embedding_types"} → {"embeddings":{"float":[[…]…]},
	// "meta":{"billed_units":{"input_tokens"}}}.
	CohereEmbed Dialect = "cohere-embed"
	// CohereRerank is Cohere's POST /v2/rerank: {"query","documents":[…],
	// "model","top_n"} → {"results":[{"index","relevance_score"}…],"meta"}.
	CohereRerank Dialect = "cohere-rerank"
	// Rerank is vLLM's /rerank, /v1/rerank (Jina/Cohere shape: "documents",
	// answer {"results":[…],"usage":{"total_tokens"}}) and Hugging Face
	// TEI's /rerank ({"query","texts":[…]} → [{"index","score"}…]).
	Rerank Dialect = "rerank"
)

// The kinds of call (Record.Kind).
const (
	KindEmbed  = "embed"
	KindRerank = "rerank"
)

// TokensNone is the TokenSource of a call whose answer reported no input
// tokens (TEI's rerank, Cohere's rerank which bills search units).
const TokensNone TokenSource = "none"

// MaxCallBody is the most of a call's answer read (a batch of 256 vectors of
// 4096 floats is about 20 MiB as JSON); a larger answer fails as malformed,
// naming the limit.
const MaxCallBody = 64 << 20

// callDialects are the non-streaming dialects, in the order ParseDialect
// lists them.
var callDialects = []Dialect{OpenAIEmbeddings, CohereEmbed, CohereRerank, Rerank}

// CallDialects lists the non-streaming dialects (embeddings and rerank).
func CallDialects() []Dialect { return append([]Dialect(nil), callDialects...) }

// CallKind is the kind of call of a non-streaming dialect ("embed" or
// "rerank"); "" for a streaming one.
func (d Dialect) CallKind() string {
	switch d {
	case OpenAIEmbeddings, CohereEmbed:
		return KindEmbed
	case CohereRerank, Rerank:
		return KindRerank
	}
	return ""
}

// callRequest is what the engine reads of a call's request body.
type callRequest struct {
	Model     json.RawMessage `json:"model"`
	Input     json.RawMessage `json:"input"`
	Texts     json.RawMessage `json:"texts"`
	Inputs    json.RawMessage `json:"inputs"`
	Documents json.RawMessage `json:"documents"`
	Query     json.RawMessage `json:"query"`
}

// prepareCall checks a call's body and returns its model and batch size:
// the inputs to embed, or the documents to rank against the query.
func prepareCall(body []byte, d Dialect) (model string, batch int, err error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return "", 0, errors.New("the request body is empty; want a JSON object")
	}
	var r callRequest
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil || m == nil {
		if err == nil || json.Valid(body) {
			return "", 0, fmt.Errorf("the request body is JSON but not an object (it starts with %q)", firstBytes(body, 20))
		}
		return "", 0, fmt.Errorf("the request body is not valid JSON: %v", err)
	}
	_ = json.Unmarshal(body, &r) // the object parsed; a field of an odd type is caught below
	_ = json.Unmarshal(r.Model, &model)
	var field string
	var raw json.RawMessage
	switch d {
	case OpenAIEmbeddings:
		field, raw = "input", r.Input
	case CohereEmbed:
		field, raw = "texts", r.Texts
		if raw == nil {
			field, raw = "inputs", r.Inputs
		}
	default: // rerank: vLLM and Cohere send documents, TEI texts
		field, raw = "documents", r.Documents
		if raw == nil && r.Texts != nil {
			field, raw = "texts", r.Texts
		}
		if r.Query == nil {
			return "", 0, fmt.Errorf("the %s request has no \"query\"", d)
		}
	}
	batch, err = countInputs(raw, d == OpenAIEmbeddings)
	if err != nil {
		return "", 0, fmt.Errorf("the %s request's %q: %v", d, field, err)
	}
	return model, batch, nil
}

// countInputs counts the inputs of an input field: a string is one input;
// an array holds one input per element, except an array of numbers (token
// ids, which OpenAI takes as one input when tokenIDs).
func countInputs(raw json.RawMessage, tokenIDs bool) (int, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return 0, errors.New("missing: want a string or an array of inputs")
	}
	switch raw[0] {
	case '"':
		return 1, nil
	case '[':
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return 0, fmt.Errorf("not a JSON array: %v", err)
		}
		if len(items) == 0 {
			return 0, errors.New("empty array: want at least one input")
		}
		if tokenIDs {
			if c := bytes.TrimSpace(items[0]); len(c) > 0 && (c[0] == '-' || c[0] >= '0' && c[0] <= '9') {
				return 1, nil
			}
		}
		return len(items), nil
	}
	return 0, fmt.Errorf("want a string or an array, got %s", firstBytes(raw, 20))
}

// readCall reads a call's 2xx answer whole and finishes the record.
func (cl *call) readCall(resp *http.Response, tb *timedBody) {
	rec, b := cl.rec, cl.b
	src, err := decodeContent(resp.Header.Get("Content-Encoding"), tb)
	var answer []byte
	if err == nil {
		answer, err = io.ReadAll(io.LimitReader(src, MaxCallBody+1))
	}
	rec.Bytes = int64(len(answer))
	if err != nil {
		rec.E2E = cl.since()
		cl.readFailure(err, "reading the answer")
		b.finish(false, false)
		return
	}
	rec.E2E = cl.lastRead
	b.finish(false, false)
	switch {
	case len(answer) > MaxCallBody:
		b.fail(KindMalformed, "the %s answer is larger than the limit of %d bytes (stream.MaxCallBody)", rec.Dialect, MaxCallBody)
	case isEventStream(resp.Header.Get("Content-Type")):
		b.fail(KindMalformed, "the %s answer is text/event-stream; want one JSON document", rec.Dialect)
	default:
		rec.Events, rec.FirstEvent = 1, rec.E2E
		if msg := readCallAnswer(rec, answer); msg != "" {
			b.fail(KindMalformed, "the %s answer (%d bytes): %s", rec.Dialect, len(answer), msg)
		}
	}
}

// callAnswer is what the engine reads of an embeddings or rerank answer.
type callAnswer struct {
	Model string `json:"model"`
	// OpenAI embeddings
	Data []struct {
		Embedding json.RawMessage `json:"embedding"`
	} `json:"data"`
	// Cohere embed: {"float":[[…]…]} (v2) or [[…]…] (v1)
	Embeddings json.RawMessage `json:"embeddings"`
	// rerank (Cohere, vLLM)
	Results []struct {
		Index int `json:"index"`
	} `json:"results"`
	Usage *struct {
		PromptTokens *int `json:"prompt_tokens"`
		TotalTokens  *int `json:"total_tokens"`
	} `json:"usage"`
	Meta *struct {
		BilledUnits *struct {
			InputTokens *int `json:"input_tokens"`
		} `json:"billed_units"`
	} `json:"meta"`
}

// readCallAnswer fills the record from a call's answer; a non-empty result
// says what is wrong with it.
func readCallAnswer(rec *Record, body []byte) string {
	rec.TokenSource = TokensNone
	body = bytes.TrimSpace(body)
	if len(body) > 0 && body[0] == '[' && rec.Dialect == Rerank { // TEI
		var rs []struct {
			Index *int     `json:"index"`
			Score *float64 `json:"score"`
		}
		if err := json.Unmarshal(body, &rs); err != nil {
			return "not a JSON array of {index, score}: " + err.Error()
		}
		idx := make([]int, len(rs))
		for i, r := range rs {
			if r.Index == nil || r.Score == nil {
				return fmt.Sprintf("result %d has no index or score", i)
			}
			idx[i] = *r.Index
		}
		rec.Results = len(rs)
		return checkRanks(idx, rec.Batch)
	}
	var a callAnswer
	if err := json.Unmarshal(body, &a); err != nil {
		return "not a JSON object: " + err.Error()
	}
	if a.Model != "" {
		rec.Model = a.Model
	}
	switch {
	case a.Usage != nil && a.Usage.PromptTokens != nil:
		rec.InputTokens, rec.TokenSource = *a.Usage.PromptTokens, TokensFromUsage
	case a.Usage != nil && a.Usage.TotalTokens != nil:
		rec.InputTokens, rec.TokenSource = *a.Usage.TotalTokens, TokensFromUsage
	case a.Meta != nil && a.Meta.BilledUnits != nil && a.Meta.BilledUnits.InputTokens != nil:
		rec.InputTokens, rec.TokenSource = *a.Meta.BilledUnits.InputTokens, TokensFromUsage
	}
	clampUsage(rec)
	switch rec.Dialect {
	case OpenAIEmbeddings:
		rec.Results = len(a.Data)
	case CohereEmbed:
		n, err := cohereVectors(a.Embeddings)
		if err != nil {
			return err.Error()
		}
		rec.Results = n
	default:
		if a.Results == nil {
			return "no \"results\" array"
		}
		idx := make([]int, len(a.Results))
		for i, r := range a.Results {
			idx[i] = r.Index
		}
		rec.Results = len(a.Results)
		return checkRanks(idx, rec.Batch)
	}
	if rec.Results != rec.Batch {
		return fmt.Sprintf("%d embeddings for %d inputs", rec.Results, rec.Batch)
	}
	return ""
}

// checkRanks says what is wrong with a rerank answer's document indexes
// (in answer order) for a request of batch documents: more results than
// documents, an index out of range, or one document ranked twice; "" when
// nothing is.
func checkRanks(idx []int, batch int) string {
	if len(idx) > batch {
		return fmt.Sprintf("%d results for %d documents", len(idx), batch)
	}
	seen := make(map[int]int, len(idx))
	for i, d := range idx {
		if d < 0 || d >= batch {
			return fmt.Sprintf("result %d ranks document %d of %d", i, d, batch)
		}
		if j, ok := seen[d]; ok {
			return fmt.Sprintf("results %d and %d both rank document %d", j, i, d)
		}
		seen[d] = i
	}
	return ""
}

// cohereVectors counts the vectors of Cohere's "embeddings": an object of
// one array per embedding type (v2; every type has one vector per input),
// or an array of vectors (v1).
func cohereVectors(raw json.RawMessage) (int, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return 0, errors.New("no \"embeddings\"")
	}
	if raw[0] == '[' {
		var vs []json.RawMessage
		if err := json.Unmarshal(raw, &vs); err != nil {
			return 0, fmt.Errorf("\"embeddings\" is not an array of vectors: %v", err)
		}
		return len(vs), nil
	}
	var byType map[string][]json.RawMessage
	if err := json.Unmarshal(raw, &byType); err != nil {
		return 0, fmt.Errorf("\"embeddings\" is not an object of arrays by type: %v", err)
	}
	n := -1
	for typ, vs := range byType {
		if n >= 0 && len(vs) != n {
			return 0, fmt.Errorf("\"embeddings\" has %d %s vectors but %d of another type", len(vs), typ, n)
		}
		n = len(vs)
	}
	if n < 0 {
		return 0, errors.New("\"embeddings\" has no embedding type")
	}
	return n, nil
}
