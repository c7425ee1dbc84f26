package mcptools

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/oplog"
)

func (t *toolset) addResources(srv *mcp.Server) {
	srv.AddResource(&mcp.Resource{
		URI: consoleURI, Name: "console", Title: "Console: newest lines",
		Description: fmt.Sprintf("The newest %d console lines as console_tail returns them (JSON). Subscribe to be told when lines arrive.", oplog.DefaultTailLimit),
		MIMEType:    "application/json",
	}, t.readConsole)
	srv.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: recordTemplate, Name: "record", Title: "One record",
		Description: "One record as get_log_details returns it (JSON, within 64 KB: cut says which fields were cut); id is the record's ID.",
		MIMEType:    "application/json",
	}, t.readRecord)
	srv.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: namesTemplate, Name: "log-name", Title: "One log name",
		Description: fmt.Sprintf("A log name's counts per source and its newest %d records (JSON); completion offers the stored names.", recentNameRecord),
		MIMEType:    "application/json",
	}, t.readName)
}

func jsonContents(uri string, v any) (*mcp.ReadResourceResult, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(b)}}}, nil
}

// readConsole answers as console_tail with its defaults, within
// DefaultBudget: a resource has no arguments. The tail is fitted to a tool
// result; its JSON alone, escaped in a resource's text, is about as large,
// so a tail that comes out larger is read again within less.
func (t *toolset) readConsole(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	budget := DefaultBudget
	for {
		out, err := t.consoleTail(ctx, nil, tailIn{Collapse: true, tailBudgetArg: tailBudgetArg{MaxBytes: budget}, formatArg: formatArg{Format: "json"}})
		if err != nil {
			return nil, err
		}
		res, err := jsonContents(req.Params.URI, out)
		if err != nil || budget <= MinBudget {
			return res, err
		}
		n := readSize(res)
		if n <= DefaultBudget {
			return res, nil
		}
		budget -= max(n-DefaultBudget, 1<<10)
	}
}

func (t *toolset) readRecord(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	id, _, err := parseIDArg("id", idArg(strings.TrimPrefix(uri, recordURIPrefix)), false)
	if err != nil {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	// fitSlack: the server adds fields to the result (ttlMs, cacheScope).
	d, err := t.details(ctx, id, detailsQuery{budget: DefaultDetailsBudget - fitSlack, size: func(d *detailsOut) int {
		res, err := jsonContents(uri, d)
		if err != nil {
			return 0
		}
		b, _ := json.Marshal(res)
		return len(b)
	}})
	if oplog.ErrorCode(err) == oplog.ENOTFOUND {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	if err != nil {
		return nil, toolError(err)
	}
	return jsonContents(uri, d)
}

// nameResource is the JSON of mcplogd://names/{name}.
type nameResource struct {
	Name    string          `json:"name"`
	Sources []nameInfo      `json:"sources"`
	Recent  []recordSummary `json:"recent"`
}

func (t *toolset) readName(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	name, err := url.PathUnescape(strings.TrimPrefix(uri, namesURIPrefix))
	if err != nil {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	names, err := t.log.Names(ctx, "")
	if err != nil {
		return nil, toolError(err)
	}
	r := nameResource{Name: name, Sources: []nameInfo{}}
	for _, n := range names {
		if n.Name == name {
			r.Sources = append(r.Sources, newNameInfo(&n))
		}
	}
	if len(r.Sources) == 0 {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	page, err := t.log.List(ctx, oplog.Query{Filter: oplog.Filter{Name: name}, Count: recentNameRecord})
	if err != nil {
		return nil, toolError(err)
	}
	r.Recent = t.summaries(page.Records)
	// A resource has no arguments: it keeps to the default budget, leaving
	// out the oldest of its recent records if it must.
	for {
		res, err := jsonContents(uri, r)
		if err != nil || len(r.Recent) == 0 || readSize(res) <= DefaultBudget {
			return res, err
		}
		r.Recent = r.Recent[:len(r.Recent)-1]
	}
}

// readSize is the serialized size of a resources/read result.
func readSize(res *mcp.ReadResourceResult) int {
	b, _ := json.Marshal(res)
	return len(b)
}
