package workload

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"strconv"
	"strings"
)

// MaxImageSide bounds each side of a generated image, in pixels.
const MaxImageSide = 8192

// ImageSize is the width and height of a generated image, in pixels.
type ImageSize struct{ W, H int }

func (s ImageSize) String() string { return strconv.Itoa(s.W) + "x" + strconv.Itoa(s.H) }

// ParseImageSizes reads a comma-separated list of WxH sizes ("512x512,1024x768").
func ParseImageSizes(s string) ([]ImageSize, error) {
	var out []ImageSize
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		ws, hs, ok := strings.Cut(strings.ToLower(f), "x")
		w, err1 := strconv.Atoi(ws)
		h, err2 := strconv.Atoi(hs)
		if !ok || err1 != nil || err2 != nil {
			return nil, fmt.Errorf("image size %q: want WIDTHxHEIGHT in pixels, e.g. 512x512", f)
		}
		if w < 1 || h < 1 || w > MaxImageSide || h > MaxImageSide {
			return nil, fmt.Errorf("image size %q: each side must be 1 to %d pixels", f, MaxImageSide)
		}
		out = append(out, ImageSize{w, h})
	}
	return out, nil
}

// Image is an image of a dataset entry's message: a data URL of a PNG the
// tool generated, and its size.
type Image struct {
	URL    string `json:"url"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
}

// PNG generates a w×h PNG image whose content is a function of seed: blocks
// of 16×16 pixels in seeded colours (so that it compresses like a picture,
// not like noise, and different seeds give different images).
func PNG(w, h int, seed uint64) ([]byte, error) {
	if w < 1 || h < 1 || w > MaxImageSide || h > MaxImageSide {
		return nil, fmt.Errorf("image %dx%d: each side must be 1 to %d pixels", w, h, MaxImageSide)
	}
	rng := rand.New(rand.NewPCG(seed, 0x696d616765)) // "image"
	palette := make(color.Palette, 16)
	for i := range palette {
		palette[i] = color.RGBA{uint8(rng.IntN(256)), uint8(rng.IntN(256)), uint8(rng.IntN(256)), 255}
	}
	img := image.NewPaletted(image.Rect(0, 0, w, h), palette)
	bw := (w + 15) / 16
	blocks := make([]uint8, bw*((h+15)/16))
	for i := range blocks {
		blocks[i] = uint8(rng.IntN(len(palette)))
	}
	for y := range h {
		row := img.Pix[y*img.Stride : y*img.Stride+w]
		for x := range row {
			row[x] = blocks[(y/16)*bw+x/16]
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// PNGDataURL is PNG as a data: URL (data:image/png;base64,...), the form
// every API the module speaks takes an inline image in.
func PNGDataURL(w, h int, seed uint64) (string, error) {
	b, err := PNG(w, h, seed)
	if err != nil {
		return "", err
	}
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(b), nil
}
