package ui

import (
	"embed"
	"io/fs"
)

//go:embed static
var files embed.FS

// FS holds the page's files at its root: index.html, app.js, app.css, the
// icon (favicon.svg, and favicon.ico drawn from it) and root.html.
var FS fs.FS = mustSub(files, "static")

func mustSub(f fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(f, dir)
	if err != nil {
		panic("BUG: ui: " + err.Error())
	}
	return sub
}
