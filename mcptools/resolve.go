package mcptools

import (
	"context"

	"github.com/mcplogd/mcplogd/oplog"
)

// resolve turns a tool's arguments into a request as every adapter does
// (oplog.Resolve: run, since=last_compile, the filters, the query, the
// scope), and picks where the tool reads: the studio for studio scope,
// else this machine's log. EUNAVAILABLE says the server has no studio.
func (t *toolset) resolve(ctx context.Context, a oplog.Args) (oplog.Request, source, error) {
	a.RunsWords = runsWords
	r, err := oplog.Resolve(ctx, t.log, a, t.opts.Now())
	switch {
	case r.Studio && t.opts.StudioScope == nil: // before what the arguments got wrong: studio scope cannot work here at all
		return r, nil, oplog.Errorf(oplog.EUNAVAILABLE, "scope: studio: this mcplogd has no studio; start it with "+
			"mcplogd serve --studio URL, or set \"studio\": {\"url\", \"project\", \"machine\"} in config.json")
	case err != nil || !r.Studio:
		return r, localSource{t.log}, err
	}
	return r, studioSource{s: t.opts.StudioScope, local: t.log}, nil
}

// runsWords is where an agent sees the runs there are, for the message of
// a run no source has (oplog.Args.RunsWords).
const runsWords = "store_info lists them"

// args are the scope arguments as oplog.Resolve reads them.
func (a scopeArgs) args() oplog.Args { return oplog.Args{Scope: a.Scope, Machine: a.Machine} }
