package mockllm

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/llmstream/xk6-llmstream/internal/endpoints"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// GroundTruthField is the top-level JSON field of every SSE event (and every
// non-streamed answer) that holds the server's write time in unix nanoseconds.
// It equals stream.GroundTruthField.
const GroundTruthField = "x_mock_ts_ns"

// Server is the mock LLM. It is an http.Handler; Close stops it.
type Server struct {
	cfg    Config
	mux    *http.ServeMux
	ctx    context.Context // canceled by Close: every stream stops
	cancel context.CancelFunc

	seq        atomic.Uint64
	calls      atomic.Int64  // embeddings and rerank requests being served
	gpuScrapes atomic.Uint64 // GET /dcgm/metrics served (the noise's seed)
	counters   counters
	created    time.Time // Config.Burst is timed from it

	shared *pool            // the pool of models without their own
	pools  map[string]*pool // per model, when SlotsPerModel

	prompts *promptCounter
	prefix  *prefixCache // nil when off

	log   *logWriter // nil without Config.Log
	pacer *pacer

	// noCoalesce makes every event its own flush even when overdue (the
	// capacity benchmark measures both ways).
	noCoalesce bool

	mu       sync.Mutex // guards closed and handlers.Add against Close
	closed   bool
	handlers sync.WaitGroup
	closeErr error
	once     sync.Once
}

// New returns a Server for cfg, or an error naming what is wrong with cfg.
func New(cfg Config) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("mockllm: %w", err)
	}
	if cfg.RetryAfter == 0 {
		cfg.RetryAfter = DefaultRetryAfter
	}
	prompts, err := newPromptCounter(cfg.Tokenizer)
	if err != nil {
		return nil, fmt.Errorf("mockllm: %w", err)
	}
	s := &Server{cfg: cfg, mux: http.NewServeMux(), prompts: prompts, prefix: newPrefixCache(cfg.PrefixCache), created: time.Now()}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.shared = newPool(cfg.Slots, cfg.QueueLimit)
	if cfg.SlotsPerModel {
		s.pools = make(map[string]*pool, len(cfg.Models))
		for name := range cfg.Models {
			s.pools[name] = newPool(cfg.Slots, cfg.QueueLimit)
		}
	}
	if cfg.Log != nil {
		s.log = newLogWriter(cfg.Log)
	}
	s.pacer = newPacer()
	for _, e := range endpoints.Generation {
		s.mux.HandleFunc("POST "+e.Route, s.generation(dialect(e.Dialect)))
	}
	for _, c := range endpoints.Calls {
		s.mux.HandleFunc("POST "+c.Path, s.tracked(s.serveCall(c))) // serveCall checks the key, to log a 401
	}
	s.mux.HandleFunc("GET "+endpoints.GPUMetrics, s.serveGPUMetrics)
	s.mux.HandleFunc("GET "+endpoints.Models, s.tracked(s.authorized(s.serveModels)))
	s.mux.HandleFunc("GET "+endpoints.Health, s.serveHealth)
	s.mux.HandleFunc("GET "+endpoints.Metrics, s.serveMetrics)
	s.mux.HandleFunc("/", s.serveNotFound)
	return s, nil
}

// ServeHTTP serves the mock's endpoints.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// Close stops the server: streams in progress end at once (their clients see
// the stream cut), new requests get 503, and Close returns when every handler
// has returned and the request log is flushed, with the log's first write
// error. Close is safe to call more than once.
func (s *Server) Close() error {
	s.once.Do(func() {
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		s.cancel()
		s.handlers.Wait()
		s.pacer.close()
		if s.log != nil {
			if err := s.log.close(); err != nil {
				s.closeErr = fmt.Errorf("mockllm: request log: %w", err)
			}
		}
	})
	return s.closeErr
}

// Stats returns a snapshot of the server's counters.
func (s *Server) Stats() Stats {
	c := &s.counters
	st := Stats{
		Requests:     c.requests.Load(),
		Streams:      c.streams.Load(),
		Completed:    c.completed.Load(),
		ClientGone:   c.clientGone.Load(),
		QueueFull:    c.queueFull.Load(),
		Unauthorized: c.unauthorized.Load(),
		BadRequests:  c.badRequests.Load(),
		Events:       c.events.Load(),
		Tokens:       c.tokens.Load(),
		Lateness:     c.lateness.summary(),
		Faults:       make(map[Fault]int64),
	}
	for i := range c.faults {
		if n := c.faults[i].Load(); n > 0 {
			st.Faults[faultByIndex(i)] = n
		}
	}
	for _, p := range s.allPools() {
		st.Active += p.active.Load()
		st.Waiting += p.waiting.Load()
	}
	return st
}

func (s *Server) allPools() []*pool {
	ps := []*pool{s.shared}
	for _, p := range s.pools {
		ps = append(ps, p)
	}
	return ps
}

// poolFor returns the slot pool of a model.
func (s *Server) poolFor(model string) *pool {
	if p, ok := s.pools[model]; ok {
		return p
	}
	return s.shared
}

// enter registers a handler with the server; it returns false once Close began.
func (s *Server) enter() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.handlers.Add(1)
	return true
}

// tracked wraps a handler so that Close waits for it and refuses it once
// closing.
func (s *Server) tracked(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !s.enter() {
			writeError(w, dialectOf(r), http.StatusServiceUnavailable, "server_closed", "the mock server is shutting down")
			return
		}
		defer s.handlers.Done()
		h(w, r)
	}
}

// authorized wraps a handler with the API key check.
func (s *Server) authorized(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !s.keyOK(r) {
			s.counters.unauthorized.Add(1)
			s.counters.faults[faultIndex(FaultUnauthorized)].Add(1)
			writeUnauthorized(w, dialectOf(r))
			return
		}
		h(w, r)
	}
}

// keyOK reports whether r carries the configured API key (always true without
// one). The comparison takes the same time whatever the key.
func (s *Server) keyOK(r *http.Request) bool {
	if s.cfg.APIKey == "" {
		return true
	}
	want := []byte(s.cfg.APIKey)
	for _, k := range []string{r.Header.Get("x-api-key"), r.Header.Get("x-goog-api-key"), googleQueryKey(r)} {
		if k != "" && subtle.ConstantTimeCompare([]byte(k), want) == 1 {
			return true
		}
	}
	auth := r.Header.Get("Authorization")
	const bearer = "Bearer "
	if len(auth) > len(bearer) && strings.EqualFold(auth[:len(bearer)], bearer) {
		return subtle.ConstantTimeCompare([]byte(strings.TrimSpace(auth[len(bearer):])), want) == 1
	}
	return false
}

// dialectOf is the dialect of error answers for paths that are not a
// generation endpoint: each API's own prefix (ollama /api/, Cohere /v2/,
// Gemini /v1beta/: endpoints.APIPrefixes), Anthropic for a request with
// anthropic-version, the generation dialect the path implies
// (endpoints.PathDialects), OpenAI otherwise.
func dialectOf(r *http.Request) dialect {
	if d := endpoints.DialectOfPrefix(r.URL.Path); d != "" {
		return dialect(d)
	}
	if r.Header.Get("anthropic-version") != "" {
		return anthropicMessages
	}
	if d := endpoints.DialectOfPath(r.URL.Path); d != "" {
		if _, ok := endpoints.Of(d); ok { // a generation dialect, not a call's
			return dialect(d)
		}
	}
	return openAIChat
}

func (s *Server) serveHealth(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte("ok\n"))
}

// allowed are the methods of the mock's paths, for 405 answers, and served
// lists them for 404 answers: both made from endpoints, the one list.
var allowed, served = func() (map[string]string, string) {
	m := map[string]string{endpoints.Models: http.MethodGet, endpoints.Health: http.MethodGet}
	var list []string
	for _, e := range endpoints.Generation {
		path, _, _ := strings.Cut(e.Path, "?")
		if e.Route == e.Path {
			m[e.Route] = http.MethodPost
		}
		list = append(list, "POST "+path)
		if e.Dialect == string(gemini) {
			list = append(list, "POST "+strings.Replace(path, ":streamGenerateContent", ":generateContent", 1))
		}
	}
	for _, c := range endpoints.Calls {
		m[c.Path] = http.MethodPost
		list = append(list, "POST "+c.Path)
	}
	m[endpoints.GPUMetrics] = http.MethodGet
	list = append(list, "GET "+endpoints.Models, "GET "+endpoints.Health, "GET "+endpoints.GPUMetrics)
	return m, strings.Join(list, ", ")
}()

func (s *Server) serveNotFound(w http.ResponseWriter, r *http.Request) {
	m, ok := allowed[r.URL.Path]
	if !ok && strings.HasPrefix(r.URL.Path, "/v1beta/models/") && strings.Contains(r.URL.Path, ":") {
		m, ok = http.MethodPost, true // a Gemini generation path
	}
	if ok {
		w.Header().Set("Allow", m)
		writeError(w, dialectOf(r), http.StatusMethodNotAllowed, "method_not_allowed",
			fmt.Sprintf("%s %s: method not allowed, use %s", r.Method, r.URL.Path, m))
		return
	}
	writeError(w, dialectOf(r), http.StatusNotFound, "not_found",
		fmt.Sprintf("no endpoint %s %s (the mock serves %s)", r.Method, r.URL.Path, served))
}

// serveModels lists the configured models, in the OpenAI shape, or the
// Anthropic one when the request carries anthropic-version.
func (s *Server) serveModels(w http.ResponseWriter, r *http.Request) {
	names := s.cfg.ModelNames()
	created := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	var body any
	if r.Header.Get("anthropic-version") != "" {
		type model struct {
			Type        string `json:"type"`
			ID          string `json:"id"`
			DisplayName string `json:"display_name"`
			CreatedAt   string `json:"created_at"`
		}
		data := make([]model, len(names))
		for i, n := range names {
			data[i] = model{"model", n, n, created.Format(time.RFC3339)}
		}
		body = struct {
			Data    []model `json:"data"`
			HasMore bool    `json:"has_more"`
			FirstID string  `json:"first_id"`
			LastID  string  `json:"last_id"`
		}{data, false, names[0], names[len(names)-1]}
	} else {
		type model struct {
			ID      string `json:"id"`
			Object  string `json:"object"`
			Created int64  `json:"created"`
			OwnedBy string `json:"owned_by"`
		}
		data := make([]model, len(names))
		for i, n := range names {
			data[i] = model{n, "model", created.Unix(), "mockllm"}
		}
		body = struct {
			Object string  `json:"object"`
			Data   []model `json:"data"`
		}{"list", data}
	}
	writeJSON(w, http.StatusOK, body)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil { // the values written here always marshal
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// writeError answers status with an error body in the dialect's shape.
func writeError(w http.ResponseWriter, d dialect, status int, code, msg string) {
	if writeDialectError(w, d, status, msg) {
		return
	}
	if d == anthropicMessages {
		typ := "api_error"
		switch status {
		case http.StatusBadRequest:
			typ = "invalid_request_error"
		case http.StatusUnauthorized:
			typ = "authentication_error"
		case http.StatusNotFound:
			typ = "not_found_error"
		case http.StatusTooManyRequests:
			typ = "rate_limit_error"
		case 529, http.StatusServiceUnavailable:
			typ = "overloaded_error"
		}
		writeJSON(w, status, map[string]any{
			"type":  "error",
			"error": map[string]string{"type": typ, "message": msg},
		})
		return
	}
	typ := "server_error"
	switch {
	case status == http.StatusTooManyRequests:
		typ = "requests"
	case status < 500:
		typ = "invalid_request_error"
	}
	writeJSON(w, status, map[string]any{
		"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": code},
	})
}

// writeUnauthorized answers 401 without ever quoting the key received.
func writeUnauthorized(w http.ResponseWriter, d dialect) {
	writeError(w, d, http.StatusUnauthorized, "invalid_api_key",
		"missing or incorrect API key: send it as \"Authorization: Bearer KEY\", \"x-api-key: KEY\" or \"x-goog-api-key: KEY\"")
}

// writeTooMany answers 429 with Retry-After.
func (s *Server) writeTooMany(w http.ResponseWriter, d dialect, msg string) {
	secs := int64((s.cfg.RetryAfter + time.Second - 1) / time.Second)
	w.Header().Set("Retry-After", fmt.Sprint(secs))
	writeError(w, d, http.StatusTooManyRequests, "rate_limit_exceeded", msg)
}

// errClientGone marks a stream that ended because its client left or the
// server closed.
var errClientGone = errors.New("client gone")
