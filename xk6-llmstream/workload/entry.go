package workload

// Version is the value of every entry's "v" field. A reader refuses other
// versions; a change that breaks readers increments it.
const Version = 1

// Entry is one request of a dataset: one JSON object on one line of the file.
// Counts are in tokens of the tokenizer named in Tokenizer, of the message
// contents (or the prompt) alone: a server's prompt_tokens adds the tokens of
// its chat template.
type Entry struct {
	V  int    `json:"v"`
	ID string `json:"id"`
	// Messages (chat APIs) or Prompt (completions APIs): exactly one is set.
	Messages []Message `json:"messages,omitempty"`
	Prompt   string    `json:"prompt,omitempty"`
	// MaxTokens is what to ask the server for; OutputTokens is the output length
	// the entry was built for (the same here; readers compare the server's
	// output length with OutputTokens).
	MaxTokens    int `json:"max_tokens"`
	OutputTokens int `json:"output_tokens"`
	// InputTokens is the counted length of the messages or prompt;
	// InputTokensTarget is the length the synthetic generator was asked for
	// (absent for entries read from a file). They are equal when both are set.
	InputTokens       int    `json:"input_tokens"`
	InputTokensTarget int    `json:"input_tokens_target,omitempty"`
	Tokenizer         string `json:"tokenizer"`
	// Session and Turn (from 1) place the entry in a multi-turn conversation:
	// Messages then holds only this turn's new user message, and the client
	// keeps the history.
	Session string `json:"session,omitempty"`
	Turn    int    `json:"turn,omitempty"`
	// PrefixGroup (from 1) names the shared-prefix group: every entry of a group
	// starts with the same PrefixTokens tokens.
	PrefixGroup  int `json:"prefix_group,omitempty"`
	PrefixTokens int `json:"prefix_tokens,omitempty"`
	// AtMS is a trace's send time of the request, ms from the trace's first
	// request (built with --trace; the module's replay() sends it then).
	AtMS *float64          `json:"at_ms,omitempty"`
	Tags map[string]string `json:"tags,omitempty"`
	// After names the requests of an agent trace (dataset --format
	// otlp-genai) this one waits for: it is sent DelayMS (the recorded
	// think or tool time) after each of them finished, whichever is last;
	// an entry without After is sent at AtMS (the module's replayAgents()).
	After []After `json:"after,omitempty"`
}

// After is one request an entry waits for, and the recorded time from its
// end to the entry's start.
type After struct {
	ID      string  `json:"id"`
	DelayMS float64 `json:"delay_ms"`
}

// Message is one chat message. Images (generated PNGs, --image-sizes) go
// with the text; the module sends them as the dialect's image parts.
type Message struct {
	Role    string  `json:"role"`
	Content string  `json:"content"`
	Images  []Image `json:"images,omitempty"`
}
