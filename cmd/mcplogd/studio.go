package main

import (
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"sync/atomic"
	"time"

	"github.com/mcplogd/mcplogd/internal/datadir"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/store"
	"github.com/mcplogd/mcplogd/studio"
)

// studioFlags are serve's --studio, --project and --machine (and the
// settle time the tests shorten).
type studioFlags struct {
	url, project, machine string
	settle, timeout       time.Duration
}

func (f *studioFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.url, "studio", "", "forward every record to the studio's VictoriaLogs at this URL, e.g. http://vl.studio:9428 (also config.json's {\"studio\": {\"url\"}})")
	fs.StringVar(&f.project, "project", "", "with --studio: the project field (default: the name of the directory that holds the data directory)")
	fs.StringVar(&f.machine, "machine", "", "with --studio: the machine field (default: the host name)")
	durationVar(fs, &f.settle, "studio-settle", studio.DefaultSettle, "with --studio: how long after VictoriaLogs acknowledged rows, and answers again after a failure, they are checked for (and sent again when missing)")
	durationVar(fs, &f.timeout, "studio-timeout", studio.DefaultTimeout, "with --studio: how long one request to VictoriaLogs may take")
}

// options resolves the flags over DATA/config.json's studio; ok is false
// when neither names a studio.
func (f *studioFlags) options(dir *datadir.Dir) (o studio.ForwardOptions, ok bool, err error) {
	cfg, err := dir.Config()
	if err != nil {
		return o, false, err
	}
	o = studio.ForwardOptions{URL: f.url, Project: f.project, Machine: f.machine, Settle: f.settle, Timeout: f.timeout,
		StatePath: dir.StudioStatePath()}
	if c := cfg.Studio; c != nil {
		o.URL = cmpOr(o.URL, c.URL)
		o.Project = cmpOr(o.Project, c.Project)
		o.Machine = cmpOr(o.Machine, c.Machine)
	}
	if o.URL == "" {
		if f.project != "" || f.machine != "" {
			return o, false, errors.New("--project and --machine need --studio URL (or config.json's studio url)")
		}
		return o, false, nil
	}
	if o.URL, err = studio.ParseURL(o.URL); err != nil {
		return o, false, errors.New("--studio: " + err.Error())
	}
	o.Project = cmpOr(o.Project, dir.DefaultProject())
	if o.Machine == "" {
		if o.Machine, err = os.Hostname(); err != nil || o.Machine == "" {
			return o, false, errors.New("--machine: the host name is unknown; name the machine")
		}
	}
	return o, true, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// studioLink is serve's forwarder: retention holds what it has not sent
// from the moment the store opens, before the forwarder starts.
type studioLink struct {
	opts studio.ForwardOptions
	on   bool
	fw   atomic.Pointer[studio.Forwarder]

	projectDefaulted bool // neither --project nor config.json named the project
}

// prepare reads the studio settings and, with a studio, makes retention
// hold the records not forwarded yet.
func (l *studioLink) prepare(f *studioFlags, dir *datadir.Dir, sopts *store.Options, logger *slog.Logger) error {
	var err error
	if l.opts, l.on, err = f.options(dir); err != nil || !l.on {
		return err
	}
	if cfg, _ := dir.Config(); f.project == "" && (cfg.Studio == nil || cfg.Studio.Project == "") {
		l.projectDefaulted = true
	}
	l.opts.Logger = logger
	sopts.Hold = func() uint64 {
		if fw := l.fw.Load(); fw != nil {
			return fw.Hold()
		}
		return 0
	}
	return nil
}

// start starts forwarding log; nothing without a studio.
func (l *studioLink) start(log *oplog.Log) error {
	if !l.on {
		return nil
	}
	fw, err := studio.Forward(log, l.opts)
	if err != nil {
		return err
	}
	l.fw.Store(fw)
	return nil
}

// status is the forwarder's status for store_info and /metrics; nil without a studio.
func (l *studioLink) status() func() oplog.StudioStatus {
	if !l.on {
		return nil
	}
	return func() oplog.StudioStatus {
		if fw := l.fw.Load(); fw != nil {
			return fw.Status()
		}
		return oplog.StudioStatus{URL: l.opts.URL, Project: l.opts.Project, Machine: l.opts.Machine, State: oplog.StudioStarting}
	}
}

// describe says where records go, for serve's banner; "" without a studio.
func (l *studioLink) describe() string {
	if !l.on {
		return ""
	}
	s := l.status()()
	d := fmt.Sprintf("forwarding to %s as project %q, machine %q", s.URL, s.Project, s.Machine)
	if l.projectDefaulted {
		// Two data directories in two folders are two projects unless told.
		d += fmt.Sprintf("\n            (%q is the name of the data directory's folder: machines group together only under one --project)", s.Project)
	}
	return d
}

// close stops the forwarder; what it did not send goes at the next start.
func (l *studioLink) close() {
	if fw := l.fw.Load(); fw != nil {
		_ = fw.Close()
	}
}
