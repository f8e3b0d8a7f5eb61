package conformance

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"
)

// goSDKVersions are the Go SDKs of conformance/go.mod.
var goSDKVersions = map[string]string{"openai-chat": "openai-go@v3.98.0", "openai-responses": "openai-go@v3.98.0",
	"anthropic-messages": "anthropic-sdk-go@v2.15.0"}

// goShapeAllowed are legitimate differences from the Go SDKs' bodies.
var goShapeAllowed = map[string]string{
	"openai-chat/tool-turns + messages[role=assistant].content: null": "content null is the type's own value",
	// anthropic-sdk-go's NewToolResultBlock always writes the result as a list of
	// text blocks and is_error; the API documents content as a string or such a
	// list, and is_error as optional (default false). The node SDK's string form
	// is the module's (TestRequestShapesMatchOfficialSDKs).
	"anthropic-messages/tool-turns + messages[role=user].content[type=tool_result].content: string":                 "string or blocks",
	"anthropic-messages/tool-turns - messages[role=user].content[type=tool_result].content[type=text].text: string": "string or blocks",
	"anthropic-messages/tool-turns - messages[role=user].content[type=tool_result].content[type=text].type=text":    "string or blocks",
	"anthropic-messages/tool-turns - messages[role=user].content[type=tool_result].is_error: bool":                  "optional, default false",
	// anthropic-sdk-go's MessageParam.Content is a list of blocks only; the API
	// documents a message's content as a string or a list (the node SDK sends
	// the module's string).
	"anthropic-messages/tool-turns + messages[role=user].content: string":                 "string or blocks",
	"anthropic-messages/tool-turns - messages[role=user].content[type=text].text: string": "string or blocks",
	"anthropic-messages/tool-turns - messages[role=user].content[type=text].type=text":    "string or blocks",
}

func jsonMap(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// goSDKBodies are the bodies the Go SDKs' typed params marshal to (what
// their clients send), by dialect/feature, built with the SDKs' own
// constructors where they have one.
func goSDKBodies(t *testing.T) map[string]any {
	schema, out := jsonMap(t, shapeSchema), jsonMap(t, shapeOut)
	dataURL := "data:image/png;base64," + shapePNG
	bodies := map[string]any{}

	// openai-go chat completions.
	chatTools := []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
		Name: "get_weather", Description: openai.String("Weather of a city"), Parameters: schema})}
	q := []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Q")}
	img := func(url string) []openai.ChatCompletionMessageParamUnion {
		return []openai.ChatCompletionMessageParamUnion{openai.UserMessage([]openai.ChatCompletionContentPartUnionParam{
			openai.TextContentPart("Describe"), openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: url})})}
	}
	assistant := openai.ChatCompletionMessageParamUnion{OfAssistant: &openai.ChatCompletionAssistantMessageParam{
		ToolCalls: []openai.ChatCompletionMessageToolCallUnionParam{{OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
			ID: "call_1", Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: "get_weather", Arguments: `{"city":"Paris"}`}}}}}}
	bodies["openai-chat/tools"] = openai.ChatCompletionNewParams{Messages: q, Tools: chatTools}
	bodies["openai-chat/tool-turns"] = openai.ChatCompletionNewParams{Tools: chatTools,
		Messages: append(append([]openai.ChatCompletionMessageParamUnion{}, q...), assistant, openai.ToolMessage("sunny", "call_1"))}
	bodies["openai-chat/image-data"] = openai.ChatCompletionNewParams{Messages: img(dataURL)}
	bodies["openai-chat/image-url"] = openai.ChatCompletionNewParams{Messages: img(shapeURL)}
	bodies["openai-chat/structured"] = openai.ChatCompletionNewParams{Messages: q, ResponseFormat: openai.ChatCompletionNewParamsResponseFormatUnion{
		OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{
			Name: "person", Schema: out, Strict: openai.Bool(true)}}}}

	// openai-go Responses.
	fnTool := responses.ToolParamOfFunction("get_weather", schema, false)
	fnTool.OfFunction.Description = openai.String("Weather of a city")
	rTools := []responses.ToolUnionParam{fnTool}
	rq := responses.ResponseInputParam{responses.ResponseInputItemParamOfMessage("Q", responses.EasyInputMessageRoleUser)}
	rInput := func(items responses.ResponseInputParam) responses.ResponseNewParamsInputUnion {
		return responses.ResponseNewParamsInputUnion{OfInputItemList: items}
	}
	rImg := func(url string) responses.ResponseInputParam {
		im := responses.ResponseInputContentParamOfInputImage(responses.ResponseInputImageDetailAuto)
		im.OfInputImage.ImageURL = openai.String(url)
		return responses.ResponseInputParam{responses.ResponseInputItemParamOfMessage(responses.ResponseInputMessageContentListParam{
			responses.ResponseInputContentParamOfInputText("Describe"), im}, responses.EasyInputMessageRoleUser)}
	}
	output := responses.ResponseInputItemParamOfFunctionCallOutput("sunny")
	output.OfFunctionCallOutput.CallID = openai.String("call_1")
	bodies["openai-responses/tools"] = responses.ResponseNewParams{Input: rInput(rq), Tools: rTools}
	bodies["openai-responses/tool-turns"] = responses.ResponseNewParams{Tools: rTools, Input: rInput(append(append(responses.ResponseInputParam{}, rq...),
		responses.ResponseInputItemParamOfFunctionCall(`{"city":"Paris"}`, "call_1", "get_weather"), output))}
	bodies["openai-responses/image-data"] = responses.ResponseNewParams{Input: rInput(rImg(dataURL))}
	bodies["openai-responses/image-url"] = responses.ResponseNewParams{Input: rInput(rImg(shapeURL))}
	bodies["openai-responses/structured"] = responses.ResponseNewParams{Input: rInput(rq), Text: responses.ResponseTextConfigParam{
		Format: responses.ResponseFormatTextConfigUnionParam{OfJSONSchema: &responses.ResponseFormatTextJSONSchemaConfigParam{
			Name: "person", Schema: out, Strict: openai.Bool(true)}}}}

	// anthropic-sdk-go Messages.
	aTools := []anthropic.ToolUnionParam{{OfTool: &anthropic.ToolParam{Name: "get_weather", Description: anthropic.String("Weather of a city"),
		InputSchema: anthropic.ToolInputSchemaParam{Properties: schema["properties"], Required: []string{"city"}}}}}
	aq := []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Q"))}
	aImg := func(b anthropic.ContentBlockParamUnion) []anthropic.MessageParam {
		return []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Describe"), b)}
	}
	bodies["anthropic-messages/tools"] = anthropic.MessageNewParams{MaxTokens: 64, Messages: aq, Tools: aTools}
	bodies["anthropic-messages/tool-turns"] = anthropic.MessageNewParams{MaxTokens: 64, Tools: aTools, Messages: append(append([]anthropic.MessageParam{}, aq...),
		anthropic.NewAssistantMessage(anthropic.NewToolUseBlock("call_1", map[string]any{"city": "Paris"}, "get_weather")),
		anthropic.NewUserMessage(anthropic.NewToolResultBlock("call_1", "sunny", false)))}
	bodies["anthropic-messages/image-data"] = anthropic.MessageNewParams{MaxTokens: 64, Messages: aImg(anthropic.NewImageBlockBase64("image/png", shapePNG))}
	bodies["anthropic-messages/image-url"] = anthropic.MessageNewParams{MaxTokens: 64, Messages: aImg(anthropic.NewImageBlock(anthropic.URLImageSourceParam{URL: shapeURL}))}
	bodies["anthropic-messages/structured"] = anthropic.MessageNewParams{MaxTokens: 64, Messages: aq,
		OutputConfig: anthropic.OutputConfigParam{Format: anthropic.JSONOutputFormatParam{Schema: out}}}
	return bodies
}

// TestRequestShapesMatchGoSDKs: the module's bodies against those the Go
// SDKs' typed params make (their types, not a hand-written example, decide
// the shape). Needs no node.
func TestRequestShapesMatchGoSDKs(t *testing.T) {
	mod := moduleShapes(t)
	bodies := goSDKBodies(t)
	for _, d := range []string{"openai-chat", "openai-responses", "anthropic-messages"} {
		for _, f := range shapeFeatures(d) {
			name := d + "/" + f.name
			t.Run(name, func(t *testing.T) {
				p, ok := bodies[name]
				if !ok {
					t.Fatalf("no Go SDK body for %s", name)
				}
				b, err := json.Marshal(p)
				if err != nil {
					t.Fatal(err)
				}
				s := jsonMap(t, string(b))
				m := mod[name]
				for _, k := range f.keys {
					if s[k] == nil || m[k] == nil {
						t.Fatalf("%s: the SDK's body has %v, the module's %v: both must send it", k, s[k] != nil, m[k] != nil)
					}
				}
				var bad []string
				for _, p := range shapeDiff(f.keys, m, s) {
					if _, ok := goShapeAllowed[name+" "+p]; !ok {
						bad = append(bad, p)
					}
				}
				if len(bad) > 0 {
					t.Errorf("the module's %s body differs from %s's (+ only the module's, - only the SDK's):\n  %s",
						strings.Join(f.keys, ", "), goSDKVersions[d], strings.Join(bad, "\n  "))
				}
			})
		}
	}
}
