package client

import "github.com/mcplogd/mcplogd/oplog"

// The answers of the studio scope (scope=studio on GET /api/v1/search,
// /crashes and /records): every record with its machine, pages with a
// cursor and no total.

// StudioAnswer is GET /api/v1/studio's answer: whether this server has a
// studio, and the project it reads.
type StudioAnswer struct {
	Studio  bool   `json:"studio"`            // whether the server has a studio
	Project string `json:"project,omitempty"` // its project
}

// StudioRecordAnswer is a record of one machine of the project.
type StudioRecordAnswer struct {
	Machine  string       `json:"machine"`
	Revision uint64       `json:"revision"`
	Record   oplog.Record `json:"record"`
	Fragment string       `json:"fragment,omitempty"` // search only
}

// StudioRecordsAnswer is the studio answer of GET /api/v1/search and
// /records: newest first over every machine (or machine=).
type StudioRecordsAnswer struct {
	Scope      string               `json:"scope"` // "studio"
	Project    string               `json:"project"`
	Records    []StudioRecordAnswer `json:"records"`
	NextCursor string               `json:"nextCursor,omitempty"` // pass as cursor for the next page
	// Hint is what an empty first page suggests sending instead: a
	// request (its arguments, scope "studio" among them) that finds records.
	Hint *oplog.SearchHint `json:"hint,omitempty"`
}

// StudioCrashGroupAnswer is a crash group over machines.
type StudioCrashGroupAnswer struct {
	oplog.CrashGroup
	FirstMachine string               `json:"firstMachine"`
	LastMachine  string               `json:"lastMachine"`
	Machines     []oplog.MachineCount `json:"machines"`
}

// StudioCrashesAnswer is GET /api/v1/crashes?scope=studio's answer.
type StudioCrashesAnswer struct {
	Scope   string                   `json:"scope"` // "studio"
	Project string                   `json:"project"`
	Groups  []StudioCrashGroupAnswer `json:"groups"`
	Total   int                      `json:"total"`
}
