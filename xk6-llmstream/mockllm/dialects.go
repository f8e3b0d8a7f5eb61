package mockllm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	geminischema "github.com/llmstream/xk6-llmstream/internal/gemini"
	"net/http"
	"strings"
)

// The dialects added after the first three (issue 12): each has its encoder
// file (encoder_responses.go, encoder_gemini.go, encoder_cohere.go,
// encoder_ollama.go) and its request shape here.
const (
	openAIResponses dialect = "openai-responses"
	gemini          dialect = "gemini"
	cohere          dialect = "cohere"
	ollama          dialect = "ollama"
)

// streamContentType is the Content-Type of a streamed answer: NDJSON for
// ollama, server-sent events for the others.
func streamContentType(d dialect) string {
	if d == ollama {
		return "application/x-ndjson"
	}
	return "text/event-stream; charset=utf-8"
}

// googleQueryKey is the ?key= API key Google's clients may send.
func googleQueryKey(r *http.Request) string {
	if !strings.Contains(r.URL.RawQuery, "key=") {
		return ""
	}
	return r.URL.Query().Get("key")
}

// decodeBody decodes a request body that must be a JSON object into v.
func decodeBody(body []byte, v any) error {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return errors.New("request body is empty; want a JSON object")
	}
	if body[0] != '{' {
		return errors.New("request body is not a JSON object")
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("request body: %w", err)
	}
	return nil
}

// setMaxTokens applies an optional output-token limit named name: negative
// is an error; 0 (and, for ollama's num_predict, -1 and -2: no limit) leaves
// it unset.
func setMaxTokens(req *genRequest, name string, v *int) error {
	if v == nil {
		return nil
	}
	if *v < 0 {
		return fmt.Errorf("%s: %d is negative", name, *v)
	}
	if *v > 0 {
		req.MaxTokens = *v
	}
	return nil
}

// parseDialectRequest decodes a request body of dialect d (and, for Gemini,
// its path and query).
func parseDialectRequest(d dialect, r *http.Request, body []byte) (*genRequest, error) {
	switch d {
	case openAIResponses:
		return parseResponses(body)
	case gemini:
		return parseGemini(r, body)
	case ollama:
		return parseOllama(body)
	}
	return parseRequest(d, body) // cohere v2 chat has the chat shape
}

// addWords adds a content's texts to the prompt (counted by the mock's
// tokenizer, as the other dialects' are) and keeps its words for echo mode.
func addWords(req *genRequest, what string, raw json.RawMessage) error {
	texts, images, err := contentOf(raw)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if err := addImages(req, what, images); err != nil {
		return err
	}
	req.Texts = append(req.Texts, texts...)
	words := fields(texts)
	req.InputTokens += len(words)
	if len(words) > 0 {
		req.EchoWords = words
	}
	return nil
}

// parseResponses reads an OpenAI Responses request: input (a string or a list
// of message items), instructions, max_output_tokens, stream.
func parseResponses(body []byte) (*genRequest, error) {
	var w struct {
		Model           string            `json:"model"`
		Stream          bool              `json:"stream"`
		MaxOutputTokens *int              `json:"max_output_tokens"`
		Instructions    json.RawMessage   `json:"instructions"`
		Input           json.RawMessage   `json:"input"`
		Tools           []json.RawMessage `json:"tools"`
		Text            struct {
			Format json.RawMessage `json:"format"`
		} `json:"text"`
	}
	if err := decodeBody(body, &w); err != nil {
		return nil, err
	}
	req := &genRequest{Model: w.Model, Stream: w.Stream}
	if err := setMaxTokens(req, "max_output_tokens", w.MaxOutputTokens); err != nil {
		return nil, err
	}
	if err := addTools(req, w.Tools, nil); err != nil {
		return nil, err
	}
	if err := addWords(req, "instructions", w.Instructions); err != nil {
		return nil, err
	}
	f, err := typedFormat("text.format", w.Text.Format)
	if err != nil {
		return nil, err
	}
	req.Format = f
	in := bytes.TrimSpace(w.Input)
	if len(in) == 0 || in[0] != '[' {
		return req, addWords(req, "input", in)
	}
	var items []wireMessage
	if err := json.Unmarshal(in, &items); err != nil {
		return nil, fmt.Errorf("input: want a string or a list of items: %w", err)
	}
	var types []struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(in, &types); err == nil {
		for _, t := range types {
			if t.Type == "function_call_output" {
				req.ToolResults++
			}
		}
	}
	for i, it := range items {
		if err := addWords(req, fmt.Sprintf("input[%d].content", i), it.Content); err != nil {
			return nil, err
		}
	}
	return req, nil
}

// geminiContent is a Gemini Content: a role and parts with text.
type geminiContent struct {
	Role  string          `json:"role"`
	Parts json.RawMessage `json:"parts"`
}

// parseGemini reads a Gemini generateContent request: the model and the
// method from the path, contents, systemInstruction and generationConfig.
func parseGemini(r *http.Request, body []byte) (*genRequest, error) {
	model, method, ok := strings.Cut(r.PathValue("call"), ":")
	if !ok || (method != "streamGenerateContent" && method != "generateContent") {
		return nil, fmt.Errorf("path %s: want /v1beta/models/{model}:streamGenerateContent or :generateContent", r.URL.Path)
	}
	var w struct {
		Contents          []geminiContent   `json:"contents"`
		SystemInstruction *geminiContent    `json:"systemInstruction"`
		Tools             []json.RawMessage `json:"tools"`
		GenerationConfig  struct {
			MaxOutputTokens *int `json:"maxOutputTokens"`
			ThinkingConfig  struct {
				ThinkingBudget int `json:"thinkingBudget"`
			} `json:"thinkingConfig"`
			ResponseMimeType   string          `json:"responseMimeType"`
			ResponseSchema     json.RawMessage `json:"responseSchema"`
			ResponseJSONSchema json.RawMessage `json:"responseJsonSchema"`
		} `json:"generationConfig"`
	}
	if err := decodeBody(body, &w); err != nil {
		return nil, err
	}
	stream := method == "streamGenerateContent"
	sse := r.URL.Query().Get("alt") == "sse"
	req := &genRequest{Model: model, Stream: stream && sse, GeminiArray: stream && !sse}
	if err := setMaxTokens(req, "generationConfig.maxOutputTokens", w.GenerationConfig.MaxOutputTokens); err != nil {
		return nil, err
	}
	req.ThinkingBudget = max(w.GenerationConfig.ThinkingConfig.ThinkingBudget, 0)
	if gc := &w.GenerationConfig; gc.ResponseMimeType == "application/json" {
		raw, what := gc.ResponseJSONSchema, "generationConfig.responseJsonSchema"
		if len(raw) == 0 {
			raw, what = geminiSchema(gc.ResponseSchema), "generationConfig.responseSchema"
		}
		f, err := newFormat(what, raw)
		if err != nil {
			return nil, err
		}
		req.Format = f
	}
	if err := addTools(req, w.Tools, nil); err != nil {
		return nil, err
	}
	for _, c := range w.Contents {
		req.ToolResults += countToolResults(c.Parts)
	}
	if w.SystemInstruction != nil {
		if err := addWords(req, "systemInstruction.parts", w.SystemInstruction.Parts); err != nil {
			return nil, err
		}
	}
	for i, c := range w.Contents {
		if err := addWords(req, fmt.Sprintf("contents[%d].parts", i), c.Parts); err != nil {
			return nil, err
		}
	}
	return req, nil
}

// parseOllama reads an ollama /api/chat request: messages, options.num_predict
// and stream, which is true when absent.
func parseOllama(body []byte) (*genRequest, error) {
	var w struct {
		Model    string            `json:"model"`
		Stream   *bool             `json:"stream"`
		Messages []wireMessage     `json:"messages"`
		Tools    []json.RawMessage `json:"tools"`
		Options  struct {
			NumPredict *int `json:"num_predict"`
		} `json:"options"`
		Format json.RawMessage `json:"format"`
	}
	if err := decodeBody(body, &w); err != nil {
		return nil, err
	}
	req := &genRequest{Model: w.Model, Stream: w.Stream == nil || *w.Stream}
	if err := addTools(req, w.Tools, w.Messages); err != nil {
		return nil, err
	}
	if n := w.Options.NumPredict; n != nil && *n >= -2 && *n < 0 {
		n = nil // -1: no limit, -2: fill the context
	} else if err := setMaxTokens(req, "options.num_predict", n); err != nil {
		return nil, err
	}
	for i, m := range w.Messages {
		if err := addWords(req, fmt.Sprintf("messages[%d].content", i), m.Content); err != nil {
			return nil, err
		}
		images := make([]imageInput, len(m.Images))
		for j, data := range m.Images {
			images[j] = imageInput{data: data}
		}
		if err := addImages(req, fmt.Sprintf("messages[%d].images", i), images); err != nil {
			return nil, err
		}
	}
	f, err := ollamaFormat(w.Format)
	if err != nil {
		return nil, err
	}
	req.Format = f
	return req, nil
}

// geminiSchema is Gemini's responseSchema as JSON Schema (geminischema.JSONSchema);
// what does not parse is kept as given, for newFormat to refuse by name.
func geminiSchema(raw json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(raw)) == 0 {
		return raw
	}
	out, err := geminischema.JSONSchema(raw)
	if err != nil {
		return raw
	}
	return out
}

// writeDialectError answers status with an error body in the shape of Gemini,
// Cohere or ollama, and reports false for the other dialects (whose shapes
// writeError writes).
func writeDialectError(w http.ResponseWriter, d dialect, status int, msg string) bool {
	switch d {
	case gemini:
		writeJSON(w, status, map[string]any{
			"error": map[string]any{"code": status, "message": msg, "status": googleStatus(status)},
		})
	case cohere:
		writeJSON(w, status, map[string]any{"id": "mock-error", "message": msg})
	case ollama:
		writeJSON(w, status, map[string]any{"error": msg})
	default:
		return false
	}
	return true
}

// googleStatus is the google.rpc.Code name Google's APIs give an HTTP status.
func googleStatus(status int) string {
	switch status {
	case http.StatusBadRequest:
		return "INVALID_ARGUMENT"
	case http.StatusUnauthorized:
		return "UNAUTHENTICATED"
	case http.StatusForbidden:
		return "PERMISSION_DENIED"
	case http.StatusNotFound:
		return "NOT_FOUND"
	case http.StatusTooManyRequests:
		return "RESOURCE_EXHAUSTED"
	case http.StatusServiceUnavailable:
		return "UNAVAILABLE"
	}
	return "INTERNAL"
}
