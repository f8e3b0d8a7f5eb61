package stream

import (
	"bytes"
	"fmt"
	"testing"
)

// benchDialectStreams returns an n-event stream of each dialect whose text
// events copy the shape and size of the real recordings (testdata/sse).
func benchDialectStreams(n int) map[Dialect][]byte {
	streams := map[Dialect][]byte{OpenAIChat: benchStream(n)}
	var b bytes.Buffer
	b.WriteString(`event: response.created` + "\n" + `data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_1","object":"response","created_at":1,"status":"in_progress","model":"gpt-5-2025-08-07","output":[],"usage":null}}` + "\n\n")
	for i := 1; i < n-1; i++ {
		fmt.Fprintf(&b, "event: response.output_text.delta\n"+`data: {"type":"response.output_text.delta","sequence_number":%d,"item_id":"msg_0050471a34b36ae60068c97bf19d9c819590eaf42c0edc1042","output_index":1,"content_index":0,"delta":" tok%d","logprobs":[],"obfuscation":"tWyV55lwoZZb30"}`+"\n\n", i, i)
	}
	fmt.Fprintf(&b, "event: response.completed\n"+`data: {"type":"response.completed","sequence_number":%d,"response":{"id":"resp_1","object":"response","status":"completed","model":"gpt-5-2025-08-07","usage":{"input_tokens":10,"input_tokens_details":{"cached_tokens":0},"output_tokens":%d,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":%d}}}`+"\n\n", n-1, n-2, n+8)
	streams[OpenAIResponses] = append([]byte(nil), b.Bytes()...)

	b.Reset()
	for i := 0; i < n; i++ {
		fin := ""
		if i == n-1 {
			fin = `,"finishReason": "STOP"`
		}
		fmt.Fprintf(&b, `data: {"candidates": [{"content": {"parts": [{"text": " tok%d"}],"role": "model"}%s,"index": 0}],"usageMetadata": {"promptTokenCount": 34,"candidatesTokenCount": %d,"totalTokenCount": %d,"promptTokensDetails": [{"modality": "TEXT","tokenCount": 34}]},"modelVersion": "gemini-2.5-pro","responseId": "beHBaJfEMIi-qtsP3769-Q8"}`+"\r\n\r\n", i, fin, i+1, i+35)
	}
	streams[Gemini] = append([]byte(nil), b.Bytes()...)

	b.Reset()
	b.WriteString(`data: {"id":"c9117d7f-a7e4-499f-b643-a2a1e139687b","type":"message-start","delta":{"message":{"role":"assistant","content":[],"tool_plan":"","tool_calls":[],"citations":[]}}}` + "\n\n")
	for i := 1; i < n-1; i++ {
		fmt.Fprintf(&b, `data: {"type":"content-delta","index":0,"delta":{"message":{"content":{"text":" tok%d"}}}}`+"\n\n", i)
	}
	fmt.Fprintf(&b, `data: {"type":"message-end","delta":{"finish_reason":"COMPLETE","usage":{"billed_units":{"input_tokens":8,"output_tokens":%d},"tokens":{"input_tokens":10,"output_tokens":%d}}}}`+"\n\n", n-2, n-2)
	streams[Cohere] = append([]byte(nil), b.Bytes()...)

	b.Reset()
	for i := 0; i < n-1; i++ {
		fmt.Fprintf(&b, `{"model":"llama3.2","created_at":"2025-06-02T10:15:01.%09dZ","message":{"role":"assistant","content":" tok%d"},"done":false}`+"\n", i, i)
	}
	fmt.Fprintf(&b, `{"model":"llama3.2","created_at":"2025-06-02T10:15:02.000000000Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","total_duration":4883583458,"load_duration":1334875,"prompt_eval_count":26,"prompt_eval_duration":342546000,"eval_count":%d,"eval_duration":4535599000}`+"\n", n-1)
	streams[Ollama] = b.Bytes()
	return streams
}

// BenchmarkDecodeDialect measures the whole decode (reader, JSON, record) of
// a 1,000-event stream of each dialect from memory, in events/s, so that
// each dialect's cost per event can be set against OpenAI chat's. Run with
//
//	go test ./stream -run '^$' -bench DecodeDialect -benchtime 2s
func BenchmarkDecodeDialect(b *testing.B) {
	const n = 1000
	streams := benchDialectStreams(n)
	for _, d := range []Dialect{OpenAIChat, OpenAIResponses, Gemini, Cohere, Ollama} {
		data := streams[d]
		b.Run(string(d), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			var ms0, ms1 runtimeMem
			ms0.read()
			events := 0
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				rec, err := Decode(bytes.NewReader(data), DialectAuto)
				if err != nil || rec.Err != nil || rec.Events != n || rec.Dialect != d {
					b.Fatalf("decode: %v %v, %d events, %s", err, rec.Err, rec.Events, rec.Dialect)
				}
				events += rec.Events
			}
			b.StopTimer()
			ms1.read()
			reportRates(b, events, ms0, ms1)
		})
	}
}
