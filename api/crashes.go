package api

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/mcplogd/mcplogd/client"
	"github.com/mcplogd/mcplogd/mcptools"
	"github.com/mcplogd/mcplogd/oplog"
)

// crashesAnswer is GET /api/v1/crashes's answer: client.CrashesAnswer and,
// with story, the story of one of its groups (mcptools.Story: the calls in
// flight when it struck and the trail before it), as find_crashes {limit:
// 1} tells it.
type crashesAnswer struct {
	client.CrashesAnswer
	Story *mcptools.CrashStory `json:"story,omitempty"`
}

// crashes answers GET /api/v1/crashes?since=&until=&source=&run=&class=&level=&limit=&buckets=&story=.
// class is a comma list of oplog.CrashClasses, and may be repeated; level
// (error or fatal) keeps the occurrences at it or above; both apply to
// scope=studio too. story (this machine's groups only; storyOf) adds the
// story of the first group or of the one it names.
func (s *Server) crashes(c echo.Context) error {
	p := params{c: c}
	f, st := p.resolve(s, p.args(), 0) // level: oplog.ParseLevel's spellings, into f.MinLevel
	if st != nil {
		return s.studioCrashes(c, st, f)
	}
	q := oplog.CrashQuery{Since: f.Since, Until: f.Until, Source: f.Source, Runs: f.Runs, Limit: p.int("limit"), Buckets: p.int("buckets"),
		Classes: p.list("class"), MinLevel: f.MinLevel}
	want := p.story()
	if p.err != nil {
		return p.err
	}
	page, err := s.log.FindCrashes(c.Request().Context(), q) // EINVALID naming class or level for a bad one
	if err != nil {
		return err
	}
	a := crashesAnswer{CrashesAnswer: client.CrashesAnswer{Groups: page.Groups, Total: page.Total, LastID: page.LastID,
		HistogramFrom: page.HistogramFrom, HistogramUntil: page.HistogramUntil}}
	if a.Groups == nil {
		a.Groups = []oplog.CrashGroup{}
	}
	if g := storyOf(a.Groups, want); g != nil {
		st, err := mcptools.Story(c.Request().Context(), s.log, g)
		if err != nil {
			return err
		}
		a.Story = &st
	}
	return c.JSON(http.StatusOK, a)
}

// storyFirst is the story parameter's value (1 or true) that asks for the
// first group's story: the crash that ended the newest run, when any did.
const storyFirst = "1"

// story reads the story parameter: "" (none), storyFirst, or a group's
// signature (16 hex digits); anything else is EINVALID naming it.
func (p *params) story() string {
	v := strings.ToLower(strings.TrimSpace(p.c.QueryParam("story")))
	switch {
	case v == "" || v == "0" || v == "false":
		return ""
	case v == "1" || v == "true":
		return storyFirst
	case len(v) == 16 && strings.Trim(v, "0123456789abcdef") == "":
		return v
	}
	p.fail(oplog.Errorf(oplog.EINVALID, "story: want 1 (the first group's) or a group's signature (16 hex digits), got %q", v))
	return ""
}

// storyOf returns the group whose story want (params.story) asks for: the
// first for storyFirst, the one of that signature otherwise; nil for none,
// or when no group of the answer matches.
func storyOf(groups []oplog.CrashGroup, want string) *oplog.CrashGroup {
	for i := range groups {
		if want == storyFirst || groups[i].Signature == want {
			return &groups[i]
		}
	}
	return nil
}

// list returns the comma-separated items of every occurrence of the
// parameter, trimmed and lower-cased, empty items dropped; nil when absent.
func (p *params) list(name string) []string {
	var out []string
	for _, v := range p.c.QueryParams()[name] {
		for item := range strings.SplitSeq(v, ",") {
			if item = strings.ToLower(strings.TrimSpace(item)); item != "" {
				out = append(out, item)
			}
		}
	}
	return out
}
