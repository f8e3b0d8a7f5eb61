package scripts

import (
	"os"
	"strings"
	"testing"
)

// promptScripts send LLM_PROMPT with LLM_MAX_TOKENS through the Client's own
// prompt handling: the Client option body carries max_tokens and chat(prompt)
// builds the dialect's body (messages, or prompt for openai-completions).
var promptScripts = []string{"arrival-rate.js", "capacity.js", "ci-gate.js", "compare-models.js", "concurrency-sweep.js", "ramping-vus.js", "smoke.js"}

// TestPromptScriptsSendMaxTokens runs each of them in a chat and the
// completions dialect with LLM_MAX_TOKENS=5 against a mock that would
// otherwise answer 12 tokens: every request answers 5, so max_tokens reached
// the wire in the dialect's body. Each script defines no body() helper of its own.
func TestPromptScriptsSendMaxTokens(t *testing.T) {
	st := startStack(t)
	for _, name := range promptScripts {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(src), "function body(") {
			t.Errorf("%s defines its own body() helper: use the Client option body and chat(prompt)", name)
		}
		for _, api := range []string{"openai-chat", "openai-completions"} {
			t.Run(name+"/"+api, func(t *testing.T) {
				res := simRun(t, name, st, map[string]string{"LLM_API": api, "LLM_MAX_TOKENS": "5"})
				if err := res.Err(); err != nil {
					t.Fatal(err)
				}
				got := res.Of("llm_output_tokens")
				if len(got) == 0 {
					t.Fatal("no llm_output_tokens samples")
				}
				for _, s := range got {
					if s.Value != 5 {
						t.Fatalf("an llm_output_tokens sample is %v, want 5 (max_tokens 5 on the wire); tags %v", s.Value, s.Tags)
					}
				}
			})
		}
	}
}
