package mockllm

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"image"
	_ "image/gif"  // image.DecodeConfig of GIF prompts
	_ "image/jpeg" // and of JPEG prompts
	_ "image/png"  // and of PNG prompts
	"strings"
)

// Image tokens follow OpenAI's documented rule for images in prompts
// (GPT-4o / GPT-4.1 vision, "Calculating costs"): with detail "low" an image
// costs ImageBaseTokens; otherwise ("high", "auto" or none) it is scaled down
// to fit in a 2048×2048 square, then down so that its shorter side is at most
// 768 px (both keep the aspect ratio; an image is never scaled up), and it
// costs ImageBaseTokens + ImageTileTokens per 512×512 tile that covers it.
// 1024×1024 → 768×768 → 4 tiles → 765 tokens; 2048×4096 → 768×1536 → 6 tiles
// → 1105 tokens. The mock applies this one rule in every dialect.
const (
	ImageBaseTokens = 85
	ImageTileTokens = 170
	imageTile       = 512
)

// ImageTokens is the prompt-token cost of a w×h image with the given detail
// ("low", "high", "auto" or ""), by the rule above.
func ImageTokens(w, h int, detail string) int {
	if detail == "low" || w <= 0 || h <= 0 {
		return ImageBaseTokens
	}
	fw, fh := float64(w), float64(h)
	if s := 2048 / max(fw, fh); s < 1 {
		fw, fh = fw*s, fh*s
	}
	if s := 768 / min(fw, fh); s < 1 {
		fw, fh = fw*s, fh*s
	}
	tiles := ceilDiv(int(fw+0.5), imageTile) * ceilDiv(int(fh+0.5), imageTile)
	return ImageBaseTokens + ImageTileTokens*tiles
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// promptImage is one image of a prompt: its token cost and a key of its
// content (for the prefix cache).
type promptImage struct {
	Tokens int
	key    uint64
}

// imageInput is an image part as a dialect gives it: inline data (base64, or
// a data: URL) or a URL the mock does not fetch.
type imageInput struct {
	data   string // base64
	url    string // a data: URL or http(s) URL
	detail string
}

// cost decodes the image's header and applies ImageTokens. An image by
// http(s) URL is not fetched (the mock never leaves loopback): its size is
// unknown, so it costs what detail "low" costs. what names the part in errors.
func (in imageInput) cost(what string) (promptImage, error) {
	h := fnv.New64a()
	b64 := in.data
	if b64 == "" {
		u := in.url
		if !strings.HasPrefix(u, "data:") {
			if u == "" {
				return promptImage{}, fmt.Errorf("%s: an image part with neither data nor a URL", what)
			}
			_, _ = h.Write([]byte(u))
			return promptImage{Tokens: ImageBaseTokens, key: h.Sum64()}, nil
		}
		meta, payload, ok := strings.Cut(u[len("data:"):], ",")
		if !ok || !strings.HasSuffix(meta, ";base64") {
			return promptImage{}, fmt.Errorf("%s: a data URL must be data:<media type>;base64,<data>", what)
		}
		b64 = payload
	}
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return promptImage{}, fmt.Errorf("%s: image data is not base64: %v", what, err)
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(raw))
	if err != nil {
		return promptImage{}, fmt.Errorf("%s: image data is not a PNG, JPEG or GIF image: %v", what, err)
	}
	_, _ = h.Write(raw)
	return promptImage{Tokens: ImageTokens(cfg.Width, cfg.Height, in.detail), key: h.Sum64()}, nil
}

// addImages counts images into the request's prompt.
func addImages(req *genRequest, what string, ins []imageInput) error {
	for i, in := range ins {
		pi, err := in.cost(fmt.Sprintf("%s image %d", what, i))
		if err != nil {
			return err
		}
		req.Images = append(req.Images, pi)
		req.InputTokens += pi.Tokens
		req.ImageTokens += pi.Tokens
	}
	return nil
}

// imageKeys appends one prefix-cache key per image token: the same image
// gives the same keys.
func imageKeys(req *genRequest, out []uint64) []uint64 {
	var buf [8]byte
	for _, im := range req.Images {
		for i := range im.Tokens {
			binary.LittleEndian.PutUint64(buf[:], uint64(i))
			h := fnv.New64a()
			_, _ = h.Write(buf[:])
			binary.LittleEndian.PutUint64(buf[:], im.key)
			_, _ = h.Write(buf[:])
			out = append(out, h.Sum64())
		}
	}
	return out
}

// contentPart is a content part of any dialect the mock reads: its text and,
// for an image, the dialect's fields: OpenAI chat and Cohere v2 image_url
// {url, detail}; Responses input_image (image_url a string, detail);
// Anthropic image source {type base64|url, data, url}; Gemini inline_data /
// inlineData {data} and file_data / fileData {file_uri / fileUri}.
type contentPart struct {
	Type     string          `json:"type"`
	Text     string          `json:"text"`
	ImageURL json.RawMessage `json:"image_url"`
	Detail   string          `json:"detail"`
	Source   *struct {
		Type string `json:"type"`
		Data string `json:"data"`
		URL  string `json:"url"`
	} `json:"source"`
	InlineData  *geminiBlob `json:"inline_data"`
	InlineData2 *geminiBlob `json:"inlineData"`
	FileData    *geminiBlob `json:"file_data"`
	FileData2   *geminiBlob `json:"fileData"`
}

type geminiBlob struct {
	Data     string `json:"data"`
	FileURI  string `json:"file_uri"`
	FileURI2 string `json:"fileUri"`
}

// image is the part's image, ok false for a part that holds none.
func (p *contentPart) image() (imageInput, bool, error) {
	switch {
	case p.Type == "image_url" || (p.Type == "input_image" && len(p.ImageURL) > 0):
		raw := bytes.TrimSpace(p.ImageURL)
		if len(raw) > 0 && raw[0] == '"' { // Responses: a string
			var u string
			if err := json.Unmarshal(raw, &u); err != nil {
				return imageInput{}, false, err
			}
			return imageInput{url: u, detail: p.Detail}, true, nil
		}
		var o struct {
			URL    string `json:"url"`
			Detail string `json:"detail"`
		}
		if err := json.Unmarshal(raw, &o); err != nil {
			return imageInput{}, false, errors.New(`image_url: want {"url": ..., "detail": ...}`)
		}
		return imageInput{url: o.URL, detail: o.Detail}, true, nil
	case p.Type == "image" && p.Source != nil:
		if p.Source.Type == "base64" {
			return imageInput{data: p.Source.Data}, true, nil
		}
		return imageInput{url: p.Source.URL}, true, nil
	}
	for _, b := range []*geminiBlob{p.InlineData, p.InlineData2} {
		if b != nil {
			return imageInput{data: b.Data}, true, nil
		}
	}
	for _, b := range []*geminiBlob{p.FileData, p.FileData2} {
		if b != nil {
			return imageInput{url: b.FileURI + b.FileURI2}, true, nil
		}
	}
	return imageInput{}, false, nil
}
