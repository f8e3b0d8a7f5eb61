package stream_test

import (
	"fmt"
	"strings"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/stream"
)

// Decode reads a recorded body: here an OpenAI chat stream whose first chunk
// only names the role (not text), with a usage chunk before [DONE].
func ExampleDecode() {
	body := `data: {"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}

data: {"model":"m","choices":[{"index":0,"delta":{"content":"Hello"}}]}

data: {"model":"m","choices":[{"index":0,"delta":{"content":" world"},"finish_reason":"stop"}]}

data: {"model":"m","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":2}}

data: [DONE]

`
	rec, err := stream.Decode(strings.NewReader(body), stream.DialectAuto)
	if err != nil {
		panic(err)
	}
	fmt.Println(rec.Dialect, rec.Events, "events,", rec.TextEvents, "with text")
	fmt.Printf("%q: %d output tokens from %s, finish %s, error %v\n", rec.Text, rec.OutputTokens, rec.TokenSource, rec.FinishReason, rec.Err)
	// Output:
	// openai-chat 5 events, 2 with text
	// "Hello world": 2 output tokens from usage, finish stop, error <nil>
}

// The Reader alone: CR, LF and CRLF line ends, comments, multi-line data and
// an event type.
func ExampleReader() {
	r := stream.NewReader(strings.NewReader(": ping\r\nevent: message_start\rdata: {\"a\":\ndata: 1}\r\n\r\ndata:[DONE]\n\n"), 0)
	for {
		ev, err := r.Next()
		if err != nil {
			break
		}
		fmt.Printf("type %q data %q\n", ev.Type, ev.Data)
	}
	// Output:
	// type "message_start" data "{\"a\":\n1}"
	// type "" data "[DONE]"
}
