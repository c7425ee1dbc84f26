package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mcplogd/mcplogd/mcptools"
	"github.com/mcplogd/mcplogd/oplog"
)

func (m *Main) crashes(ctx context.Context, args []string) error {
	fs := m.flags("crashes", "[--since T] [--until T] [--source S] [--run R] [--class C,...] [--level L] [--limit N] [--json] [--data DIR]",
		"List crashes and errors grouped by stack signature (records with stack traces, fatal records, runs that crashed): first those that ended runs, then the other crashes, errors and compile diagnostics, each newest first.")
	data := m.dataFlag(fs)
	var ft oplog.FilterText
	fs.StringVar(&ft.Since, "since", "", "only crashes at or after this time: "+timeForms+", or last_compile")
	fs.StringVar(&ft.Until, "until", "", "only crashes before this time, written like --since")
	fs.StringVar(&ft.Source, "source", "", "only crashes from this source")
	run := fs.String("run", "", "only crashes of this run of each source: current, previous, a run number, or an offset as mcplogd runs prints it (0, -1, ...)")
	var classes listValue
	fs.Var(&classes, "class", "only groups of these classes, comma-separated or repeated: crash, error, compile (default crash,error)")
	level := fs.String("level", "", "only occurrences at this level or above: error or fatal (default both)")
	limit := fs.Int("limit", oplog.DefaultCrashLimit, fmt.Sprintf("most groups to print (max %d)", oplog.MaxCrashLimit))
	out := outputVars(fs, "print each group as one JSON line")
	inStudio := fs.Bool("studio", false, "crashes of every machine of the project in the studio (the running server's --studio, else config.json's \"studio\"), with the machines each was seen on")
	machine := fs.String("machine", "", "with --studio: only this machine")
	if err := m.parse(fs, args, 0); err != nil {
		return err
	}
	if *limit < 1 {
		return fmt.Errorf("--limit: want at least 1, got %d", *limit)
	}
	ft.Level = *level // error or fatal: the occurrences at it or above
	a := oplog.Args{SearchText: oplog.SearchText{FilterText: ft}, Run: *run, Machine: *machine}
	if *inStudio {
		a.Scope = "studio"
		f, err := resolveFlags(ctx, nil, a)
		if err != nil {
			return err
		}
		return m.studioCrashes(ctx, *data, oplog.StudioCrashQuery{Since: f.Since, Until: f.Until, Source: f.Source, Machine: f.Machine, Limit: *limit,
			Classes: classes, MinLevel: f.MinLevel}, out.json)
	}
	type answer struct {
		page  oplog.CrashPage
		story *mcptools.CrashStory
	}
	got, err := readLog(ctx, *data, openOptions{}, func(b backend) (answer, error) {
		f, err := resolveFlags(ctx, b, a)
		if err != nil {
			return answer{}, err
		}
		page, err := b.FindCrashes(ctx, oplog.CrashQuery{Source: f.Source, Since: f.Since, Until: f.Until, Runs: f.Runs, Limit: *limit,
			Classes: classes, MinLevel: f.MinLevel})
		if oplog.ErrorCode(err) == oplog.EINVALID {
			return answer{}, errors.New("--" + oplog.ErrorMessage(err)) // "class: ...", "level: ...", "limit: ..."
		} else if err != nil || *limit != 1 {
			return answer{page: page}, err
		}
		st, err := crashStory(ctx, b, &page)
		return answer{page, st}, err
	})
	if err != nil {
		return err
	}
	return m.paged(out.noPager, func(w io.Writer, p paint) error { return printCrashes(w, &got.page, got.story, out.json, p) })
}

// crashStory is the story find_crashes {limit: 1} tells of page's one
// group (mcptools.Story: the calls in flight, the lines and calls before
// it, the runs since); nil unless the page has exactly one group.
func crashStory(ctx context.Context, b backend, page *oplog.CrashPage) (*mcptools.CrashStory, error) {
	if len(page.Groups) != 1 {
		return nil, nil
	}
	st, err := mcptools.Story(ctx, b.Backend, &page.Groups[0])
	if err != nil {
		return nil, err
	}
	return &st, nil
}

// printCrashes prints crash groups, two lines each, newest first, and
// under the first the story of its newest occurrence when there is one;
// asJSON prints each group as one JSON object instead, the story in it.
func printCrashes(w io.Writer, page *oplog.CrashPage, story *mcptools.CrashStory, asJSON bool, p paint) error {
	if asJSON {
		for i, g := range page.Groups {
			var v any = g
			if i == 0 && story != nil {
				v = struct {
					oplog.CrashGroup
					Story *mcptools.CrashStory `json:"story"`
				}{g, story}
			}
			line, err := marshalJSON(v, false)
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "%s\n", line)
		}
		return nil
	}
	if len(page.Groups) == 0 {
		fmt.Fprintln(w, "no crashes")
		return nil
	}
	for i, g := range page.Groups {
		fmt.Fprintf(w, "%s %s\n", p.level(oplog.LevelError, fmt.Sprintf("%6d×", g.Count)), p.bold(g.Title))
		fmt.Fprintf(w, p.dim("        %slast %s, first %s, %s; signature %s;")+" mcplogd show %d\n", classOf(&g),
			g.LastSeen.Local().Format("2006-01-02 15:04:05"), g.FirstSeen.Local().Format("2006-01-02 15:04:05"),
			strings.Join(g.Sources, ", "), g.Signature, g.LastID)
		if i == 0 && story != nil {
			printStory(w, story, p)
		}
	}
	if page.Total > len(page.Groups) {
		fmt.Fprintf(w, "(%d of %d groups; --limit shows more)\n", len(page.Groups), page.Total)
	}
	return nil
}

// printStory prints st under its group in find_crashes's words: how long
// ago and the runs since, the calls in flight, the call shapes across
// runs, then the lines and calls before it.
func printStory(w io.Writer, st *mcptools.CrashStory, p paint) {
	say := func(label string, items []string) {
		for _, s := range items {
			fmt.Fprintf(w, "        %s%s\n", p.dim(label), s)
		}
	}
	if st.Since != "" {
		say("", []string{st.Since})
	}
	say("in flight: ", st.InFlight)
	say("across runs: ", st.Recurrence)
	say("before: ", st.Trail)
}

// classOf is the start of a group's second line: its class and the runs it
// ended, "crash, ended 2 runs; " ("" from a server that sends no class).
func classOf(g *oplog.CrashGroup) string {
	if g.Class == "" {
		return ""
	}
	if g.RunsEnded > 0 {
		return fmt.Sprintf("%s, ended %s; ", g.Class, mcptools.Plural(g.RunsEnded, "run"))
	}
	return g.Class + "; "
}

// listValue is a flag of comma-separated items that may also be repeated
// ("--class crash,error" or "--class crash --class error").
type listValue []string

func (l *listValue) String() string { return strings.Join(*l, ",") }

func (l *listValue) Set(s string) error {
	for item := range strings.SplitSeq(s, ",") {
		if item = strings.ToLower(strings.TrimSpace(item)); item != "" {
			*l = append(*l, item)
		}
	}
	return nil
}
