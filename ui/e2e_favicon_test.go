package ui_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
)

// iconSize is favicon.ico's one image: favicon.svg at 32×32 pixels.
const iconSize = 32

// TestE2E_Favicon: the page links its SVG icon, which loads as an image,
// and /favicon.ico answers 200 with an icon, without cookie or token.
func TestE2E_Favicon(t *testing.T) {
	t.Parallel()
	s := mustServe(t)
	resp, err := http.Get(s.base + "/favicon.ico")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "image/x-icon" {
		t.Errorf("GET /favicon.ico without cookie: %s, Content-Type %q; want 200, image/x-icon", resp.Status, resp.Header.Get("Content-Type"))
	}

	b := mustBrowser(t)
	b.open(t, s)
	type iconInfo struct {
		Href   string `json:"href"`
		Status int    `json:"status"`
		Type   string `json:"type"`
		Width  int    `json:"width"`
	}
	icon, err := chromedp.Run(b.ctx, chromedp.Evaluate[iconInfo](`(async () => {
		const l = document.querySelector('link[rel="icon"]');
		if (!l) return {href: ""};
		const r = await fetch(l.href);
		const img = new Image();
		img.src = l.href;
		await img.decode();
		return {href: l.getAttribute("href"), status: r.status, type: r.headers.get("Content-Type"), width: img.naturalWidth};
	})()`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("load the page's icon: %v", err)
	}
	if icon.Href != "/ui/assets/favicon.svg" || icon.Status != http.StatusOK || icon.Type != "image/svg+xml" || icon.Width == 0 {
		t.Errorf("the page's icon: %+v; want /ui/assets/favicon.svg, 200, image/svg+xml, an image that decodes", icon)
	}
}

// TestFavicon_ICO: ui/static/favicon.ico is one 32×32 PNG in an ICO, the
// picture that Chromium draws of favicon.svg. TestScreenshots (make
// screenshots) draws it anew.
func TestFavicon_ICO(t *testing.T) {
	svg, icoPath := faviconFiles(t)
	b, err := os.ReadFile(icoPath)
	if err != nil {
		t.Fatal(err)
	}
	img := parseICO(t, b)
	want, err := png.Decode(bytes.NewReader(drawSVG(t, svg)))
	if err != nil {
		t.Fatal(err)
	}
	// Chromium's antialiasing may differ a little from one version to the next.
	if d := meanDiff(img, want); d > 4 {
		t.Errorf("favicon.ico differs from favicon.svg as Chromium draws it (mean difference %.1f of 255): make screenshots draws it anew", d)
	}
}

// writeFavicon writes favicon.ico anew from favicon.svg.
func writeFavicon(t *testing.T) {
	t.Helper()
	svg, icoPath := faviconFiles(t)
	if err := os.WriteFile(icoPath, ico(drawSVG(t, svg)), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s", icoPath)
}

// faviconFiles returns favicon.svg and the path of favicon.ico in ui/static.
func faviconFiles(t *testing.T) (svg []byte, icoPath string) {
	t.Helper()
	root, err := logtest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "ui", "static")
	svg, err = os.ReadFile(filepath.Join(dir, "favicon.svg"))
	if err != nil {
		t.Fatal(err)
	}
	return svg, filepath.Join(dir, "favicon.ico")
}

// drawSVG returns a PNG of svg drawn by Chromium at iconSize×iconSize with
// its transparency: drawn on black and on white (Chromium's screenshots are
// opaque), a pixel's alpha is how little the background shows through.
func drawSVG(t *testing.T, svg []byte) []byte {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/favicon.svg" {
			w.Header().Set("Content-Type", "image/svg+xml")
			w.Write(svg)
			return
		}
		fmt.Fprintf(w, `<!doctype html><html><body style="margin: 0; background: %s">`+
			`<img src="/favicon.svg" width="%d" height="%d" style="display: block"></body></html>`, r.URL.Query().Get("bg"), iconSize, iconSize)
	}))
	defer srv.Close()
	b := mustBrowser(t)
	b.do(t, "the icon's size", chromedp.EmulateViewport(iconSize, iconSize))
	draw := func(bg string) image.Image {
		b.do(t, "draw favicon.svg on "+bg, chromedp.Navigate(srv.URL+"/?bg="+bg))
		b.wait(t, "the icon drawn", waitLong, `document.images[0].complete && document.images[0].naturalWidth > 0`)
		p, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatalf("draw favicon.svg: %v", err)
		}
		img, err := png.Decode(bytes.NewReader(p))
		if err != nil {
			t.Fatal(err)
		}
		if r := img.Bounds(); r.Dx() != iconSize || r.Dy() != iconSize {
			t.Fatalf("the screenshot is %v, want %d×%d", r, iconSize, iconSize)
		}
		return img
	}
	black, white := draw("black"), draw("white")
	out := image.NewNRGBA(image.Rect(0, 0, iconSize, iconSize))
	for y := range iconSize {
		for x := range iconSize {
			k, w := rgb8(black.At(black.Bounds().Min.X+x, black.Bounds().Min.Y+y)), rgb8(white.At(white.Bounds().Min.X+x, white.Bounds().Min.Y+y))
			// On black a pixel is c*a, on white c*a + 255*(1-a).
			a := 255 - (w[0]-k[0]+w[1]-k[1]+w[2]-k[2])/3
			a = max(0, min(255, a))
			c := color.NRGBA{A: uint8(a)}
			if a > 0 {
				c.R, c.G, c.B = uint8(min(255, k[0]*255/a)), uint8(min(255, k[1]*255/a)), uint8(min(255, k[2]*255/a))
			}
			out.SetNRGBA(x, y, c)
		}
	}
	var p bytes.Buffer
	if err := png.Encode(&p, out); err != nil {
		t.Fatal(err)
	}
	return p.Bytes()
}

// rgb8 is c's red, green and blue, 0 to 255.
func rgb8(c color.Color) [3]int {
	r, g, b, _ := c.RGBA()
	return [3]int{int(r >> 8), int(g >> 8), int(b >> 8)}
}

// ico wraps one iconSize×iconSize PNG in an ICO file.
func ico(p []byte) []byte {
	var b bytes.Buffer
	le := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) }
	le([3]uint16{0, 1, 1})                 // reserved, type 1 (icon), one image
	le([4]uint8{iconSize, iconSize, 0, 0}) // width, height, no palette, reserved
	le([2]uint16{1, 32})                   // planes, bits per pixel
	le([2]uint32{uint32(len(p)), 6 + 16})  // the image's size and offset
	b.Write(p)
	return b.Bytes()
}

// parseICO checks that b is an ICO of one iconSize×iconSize PNG and
// returns the image.
func parseICO(t *testing.T, b []byte) image.Image {
	t.Helper()
	var h struct {
		Reserved, Type, Count uint16
		W, H, Colors, _       uint8
		Planes, Bits          uint16
		Size, Offset          uint32
	}
	if err := binary.Read(bytes.NewReader(b), binary.LittleEndian, &h); err != nil {
		t.Fatalf("favicon.ico: %v", err)
	}
	if h.Reserved != 0 || h.Type != 1 || h.Count != 1 || h.W != iconSize || h.H != iconSize || h.Offset != 22 || int(h.Offset+h.Size) != len(b) {
		t.Fatalf("favicon.ico: header %+v of %d bytes; want one %d×%d image at 22 to the end", h, len(b), iconSize, iconSize)
	}
	img, err := png.Decode(bytes.NewReader(b[h.Offset:]))
	if err != nil {
		t.Fatalf("favicon.ico: its image is no PNG: %v", err)
	}
	if r := img.Bounds(); r.Dx() != iconSize || r.Dy() != iconSize {
		t.Fatalf("favicon.ico: its PNG is %v, want %d×%d", r, iconSize, iconSize)
	}
	return img
}

// meanDiff is the mean difference of two images' RGBA channels, 0 to 255.
func meanDiff(a, b image.Image) float64 {
	if a.Bounds() != b.Bounds() {
		return 255
	}
	var sum, n float64
	r := a.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			c1 := [4]uint32{}
			c2 := [4]uint32{}
			c1[0], c1[1], c1[2], c1[3] = a.At(x, y).RGBA()
			c2[0], c2[1], c2[2], c2[3] = b.At(x, y).RGBA()
			for i := range c1 {
				d := float64(c1[i]>>8) - float64(c2[i]>>8)
				if d < 0 {
					d = -d
				}
				sum += d
				n++
			}
		}
	}
	return sum / n
}
