package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/mcplogd/mcplogd/client"
	"github.com/mcplogd/mcplogd/internal/datadir"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/studio"
)

// studioSettings name the studio the tools' scope "studio" reads.
type studioSettings struct {
	URL, Project string
}

// readStudioSettings reads the studio settings of dir's config.json; ok
// is false when it has none. The project defaults as serve's does.
func readStudioSettings(dir *datadir.Dir) (s studioSettings, ok bool, err error) {
	cfg, err := dir.Config()
	if err != nil || cfg.Studio == nil || cfg.Studio.URL == "" {
		return s, false, err
	}
	return studioSettings{URL: cfg.Studio.URL, Project: cmpOr(cfg.Studio.Project, dir.DefaultProject())}, true, nil
}

// newStudioClient is the studio client of settings s.
func newStudioClient(s studioSettings) (*studio.Client, error) {
	return studio.NewClient(studio.ClientOptions{URL: s.URL, Project: s.Project})
}

// configuredStudio is the studio dir is configured with (config.json), for
// the tools' scope "studio"; nil when it has none.
func configuredStudio(dir *datadir.Dir) (oplog.Studio, error) {
	s, ok, err := readStudioSettings(dir)
	if err != nil || !ok {
		return nil, err
	}
	c, err := newStudioClient(s)
	if err != nil {
		return nil, fmt.Errorf("config.json: %w", err)
	}
	return c, nil
}

// studioReader is what `search --studio` and `crashes --studio` ask: a
// studio client of config.json's settings, or the running server's studio.
type studioReader interface {
	Search(ctx context.Context, q oplog.StudioSearchQuery) (oplog.StudioSearchPage, error)
	FindCrashes(ctx context.Context, q oplog.StudioCrashQuery) (oplog.StudioCrashPage, error)
	Project() string
}

// studioOf returns the studio of the data directory at path: the running
// server's when it has one (started with --studio URL, or from config.json:
// flags win there), else config.json's; otherwise it says how to get one.
func studioOf(ctx context.Context, path string) (studioReader, error) {
	dir, err := datadir.Existing(path)
	if err != nil {
		return nil, err
	}
	token, err := dir.Token()
	if err != nil {
		return nil, err
	}
	if r := runningServer(ctx, dir, token); r != nil {
		if a, err := r.StudioInfo(ctx); err == nil && a.Studio {
			return serverStudio{c: r.Client, project: a.Project}, nil
		}
	}
	s, ok, err := readStudioSettings(dir)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("--studio: %s has no studio: start its server with mcplogd serve --studio http://HOST:9428 --project NAME, "+
			"or add {\"studio\": {\"url\": \"http://HOST:9428\", \"project\": \"NAME\"}} to %s", dir.Path, filepath.Join(dir.Path, "config.json"))
	}
	return newStudioClient(s)
}

// serverStudio is a running server's studio, asked over its HTTP API
// (scope=studio).
type serverStudio struct {
	c       *client.Client
	project string
}

func (s serverStudio) Search(ctx context.Context, q oplog.StudioSearchQuery) (oplog.StudioSearchPage, error) {
	return s.c.StudioSearch(ctx, q)
}

func (s serverStudio) FindCrashes(ctx context.Context, q oplog.StudioCrashQuery) (oplog.StudioCrashPage, error) {
	return s.c.StudioCrashes(ctx, q)
}

func (s serverStudio) Project() string { return s.project }

// studioSearch is `mcplogd search --studio`: the same query over every
// machine of the project.
func (m *Main) studioSearch(ctx context.Context, data string, q oplog.Request, asJSON bool) error {
	c, err := studioOf(ctx, data)
	if err != nil {
		return err
	}
	sq := oplog.StudioSearchQuery{SearchQuery: q.SearchQuery, Machine: q.Machine}
	p, err := c.Search(ctx, sq)
	if err != nil {
		return errors.New(oplog.ErrorMessage(err))
	}
	var hint *oplog.SearchHint
	if len(p.Hits) == 0 && q.Cursor == "" { // an empty answer says what to send instead
		hint = oplog.StudioHint(ctx, c, nil, sq)
	}
	w := bufio.NewWriter(m.Stdout)
	defer w.Flush()
	pt := m.paintFor(m.Stdout)
	for _, h := range p.Hits {
		if asJSON {
			b, _ := marshalJSON(struct {
				Machine  string       `json:"machine"`
				Record   oplog.Record `json:"record"`
				Fragment string       `json:"fragment,omitempty"`
			}{h.Machine, h.Record, h.Fragment}, false)
			fmt.Fprintf(w, "%s\n", b)
			continue
		}
		text := h.Text
		if h.Fragment != "" {
			text = pt.highlight(h.Fragment)
		}
		fmt.Fprintf(w, "%-12s ", h.Machine)
		printRecord(w, &h.Record, text, pt)
	}
	switch {
	case asJSON && hint != nil:
		b, _ := marshalJSON(struct {
			Hint *oplog.SearchHint `json:"hint"`
		}{hint}, false)
		fmt.Fprintf(w, "%s\n", b)
	case !asJSON:
		fmt.Fprintf(w, "-- %d shown (studio %s)", len(p.Hits), c.Project())
		if p.NextCursor != "" {
			fmt.Fprintf(w, "; more with --cursor %s", p.NextCursor)
		}
		fmt.Fprintln(w)
		if hint != nil {
			fmt.Fprintln(w, "-- "+hint.Text)
		}
	}
	return nil
}

// studioCrashes is `mcplogd crashes --studio`: crash groups over every
// machine of the project, with the machines each was seen on.
func (m *Main) studioCrashes(ctx context.Context, data string, q oplog.StudioCrashQuery, asJSON bool) error {
	c, err := studioOf(ctx, data)
	if err != nil {
		return err
	}
	p, err := c.FindCrashes(ctx, q)
	if err != nil {
		return errors.New(oplog.ErrorMessage(err))
	}
	w := bufio.NewWriter(m.Stdout)
	defer w.Flush()
	return printStudioCrashes(w, &p, c.Project(), asJSON)
}

func printStudioCrashes(w io.Writer, p *oplog.StudioCrashPage, project string, asJSON bool) error {
	if len(p.Groups) == 0 && !asJSON {
		fmt.Fprintf(w, "no crashes in studio %s\n", project)
		return nil
	}
	for _, g := range p.Groups {
		if asJSON {
			b, err := marshalJSON(struct {
				oplog.CrashGroup
				FirstMachine string               `json:"firstMachine"`
				LastMachine  string               `json:"lastMachine"`
				Machines     []oplog.MachineCount `json:"machines"`
			}{g.CrashGroup, g.FirstMachine, g.LastMachine, g.Machines}, false)
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "%s\n", b)
			continue
		}
		ms := make([]string, len(g.Machines))
		for i, mc := range g.Machines {
			ms[i] = fmt.Sprintf("%s ×%d", mc.Machine, mc.Count)
		}
		fmt.Fprintf(w, "%6d× %s\n", g.Count, g.Title)
		fmt.Fprintf(w, "        on %s; last %s on %s #%d, first %s; signature %s\n", strings.Join(ms, ", "),
			g.LastSeen.Local().Format("2006-01-02 15:04:05"), g.LastMachine, g.LastID,
			g.FirstSeen.Local().Format("2006-01-02 15:04:05"), g.Signature)
	}
	if !asJSON && p.Total > len(p.Groups) {
		fmt.Fprintf(w, "(%d of %d groups; --limit shows more)\n", len(p.Groups), p.Total)
	}
	return nil
}
