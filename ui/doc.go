// Package ui holds the web page that mcplogd serve offers at /ui/TOKEN: plain
// HTML, CSS and JavaScript, embedded in the binary so that it works offline.
// Package api serves it (see api's ui.go) and answers its requests; ui
// imports nothing of mcplogd.
//
// The page's files are in static/: index.html, app.js and app.css, and its
// icon, favicon.svg, with favicon.ico drawn from it by Chromium for the
// places that want an ICO (make screenshots draws it anew; TestFavicon_ICO
// fails when the two differ). They obey a strict Content-Security-Policy:
// no inline script or style, and text from the log is only ever set as text
// (textContent, text nodes), never parsed as HTML.
package ui
