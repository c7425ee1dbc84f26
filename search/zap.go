package search

import (
	"github.com/blevesearch/bleve/v2/index/scorch"

	zap "github.com/mcplogd/mcplogd/third_party/zapx"
)

// The index's segments are written and read by the copy of zapx v17.2.5
// in third_party/zapx, which writes a term without frequencies without a
// zero byte a posting, and one of one document as its dictionary entry
// alone (MCPLOGD.md there): registered as zap version 17 and the default,
// in place of the one bleve registers. An index written by bleve's
// differs in its mapping version (consts.go), and is rebuilt.
func init() { scorch.RegisterSegmentPlugin(&zap.ZapPlugin{}, true) }
