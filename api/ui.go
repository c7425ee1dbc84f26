package api

import (
	"crypto/subtle"
	"io/fs"
	"net/http"
	"path"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/ui"
)

// UICookie is the cookie that carries the token for the web page, set by
// GET /ui/TOKEN so that the page's own URLs and requests never hold it.
const UICookie = "mcplogd_ui"

// uiCSP is the Content-Security-Policy of every /ui answer: the page's own
// files only, no inline script or style, no framing.
const uiCSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

// mountUI serves the web page: GET /ui/TOKEN sets the cookie and redirects
// to /ui/, which (with its assets under /ui/assets/) answers only with the
// cookie; without it, or with a wrong token, 404 as for any unknown path.
func (s *Server) mountUI() {
	mw := []echo.MiddlewareFunc{uiHeaders, s.checkOrigin}
	s.echo.GET("/ui/", s.uiPage, append(mw, s.checkUICookie)...)
	s.echo.GET("/ui/assets/*", s.uiAsset, append(mw, s.checkUICookie)...)
	s.echo.GET("/ui/:token", s.uiLogin, append(mw, s.checkMCPToken)...)
	s.echo.GET("/", s.rootPage, uiHeaders)
	s.echo.GET("/favicon.ico", favicon, uiHeaders)
}

// rootPage says how to open the web page (the link that serve prints, or
// mcplogd link --web) to whoever opens the server's address: it holds no
// token and needs none.
func (s *Server) rootPage(c echo.Context) error {
	return serveUIFile(c, "root.html")
}

// favicon is the page's icon where browsers and bookmarks look for it
// without asking the page: an icon says nothing of the log, so it needs no
// token. (The page itself links the SVG among its assets.)
func favicon(c echo.Context) error {
	return serveUIFile(c, "favicon.ico")
}

// uiHeaders sets the security headers of every /ui answer, errors included.
func uiHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Response().Header()
		h.Set("Content-Security-Policy", uiCSP)
		h.Set(echo.HeaderXContentTypeOptions, "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-store")
		return next(c)
	}
}

// uiLogin trades the token in the URL for a cookie scoped to this server.
func (s *Server) uiLogin(c echo.Context) error {
	c.SetCookie(&http.Cookie{Name: UICookie, Value: c.Param("token"), Path: "/",
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: c.Request().TLS != nil})
	return c.Redirect(http.StatusSeeOther, "/ui/")
}

func (s *Server) uiPage(c echo.Context) error {
	return serveUIFile(c, "index.html")
}

func (s *Server) uiAsset(c echo.Context) error {
	name := c.Param("*")
	if name == "" || name == "index.html" || strings.Contains(name, "/") || !fs.ValidPath(name) {
		return echo.ErrNotFound
	}
	return serveUIFile(c, name)
}

// uiTypes are the page's content types, fixed rather than read from the
// system's MIME tables, which vary.
var uiTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".svg":  "image/svg+xml",
	".ico":  "image/x-icon",
}

func serveUIFile(c echo.Context, name string) error {
	b, err := fs.ReadFile(ui.FS, name)
	if err != nil {
		return echo.ErrNotFound
	}
	ct, ok := uiTypes[path.Ext(name)]
	if !ok {
		ct = echo.MIMEOctetStream
	}
	return c.Blob(http.StatusOK, ct, b)
}

// validUICookie reports whether the request carries the UI cookie with the
// current token.
func (s *Server) validUICookie(r *http.Request) bool {
	ck, err := r.Cookie(UICookie)
	want := *s.token.Load()
	return err == nil && want != "" && subtle.ConstantTimeCompare([]byte(ck.Value), []byte(want)) == 1
}

// checkUICookie answers 404, as for any unknown path, without the cookie.
func (s *Server) checkUICookie(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if !s.validUICookie(c.Request()) {
			return echo.ErrNotFound
		}
		return next(c)
	}
}

// cookieAuth is authorize's second way in, for the web page: the UI
// cookie, accepted only from the server's own origin. The cookie is
// SameSite=Strict, but a page on another port of the same host is
// same-site, so the origin is checked too: an Origin header must be this
// server's, and without one, Sec-Fetch-Site must say same-origin. A request
// that says neither is refused. It reports false (go on to 401) without a
// valid cookie, and returns a 403 error for a valid cookie from elsewhere.
func (s *Server) cookieAuth(c echo.Context) (bool, error) {
	r := c.Request()
	if !s.validUICookie(r) {
		return false, nil
	}
	if !s.allowedHost(r) {
		return false, echo.NewHTTPError(http.StatusForbidden, "Host "+r.Host+" is not this server's address")
	}
	if !sameOrigin(r) {
		return false, echo.NewHTTPError(http.StatusForbidden, "the web page's cookie is accepted from the page's own origin only")
	}
	return true, nil
}

// sameOrigin reports whether a browser says that r comes from a page of
// the origin r is addressed to. A request that carries neither Origin nor
// Sec-Fetch-Site passes only when it is a GET or HEAD: browsers send
// Sec-Fetch-Site only to https and loopback origins, so the page's own
// reads from a plain-http LAN address carry neither, while every write
// (POST) carries Origin, and SameSite=Strict keeps the cookie off other
// sites' requests.
func sameOrigin(r *http.Request) bool {
	if o := r.Header.Get(echo.HeaderOrigin); o != "" {
		scheme := "http"
		if r.TLS != nil {
			scheme = "https"
		}
		return strings.EqualFold(strings.TrimSuffix(o, "/"), scheme+"://"+r.Host)
	}
	if s := r.Header.Get("Sec-Fetch-Site"); s != "" {
		return s == "same-origin"
	}
	return r.Method == http.MethodGet || r.Method == http.MethodHead
}

// unauthorized is authorize's answer without a credential.
func unauthorized(c echo.Context) error {
	c.Response().Header().Set(echo.HeaderWWWAuthenticate, `Bearer realm="mcplogd"`)
	return oplog.Errorf(oplog.EUNAUTHORIZED, "missing or wrong token: send the token of the data directory (mcplogd token prints it) as \"Authorization: Bearer <token>\"")
}
