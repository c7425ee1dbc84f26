package search

import (
	"strconv"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/mapping"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/mcplogd/mcplogd/oplog"
)

// MappingVersion is the version of the index mapping and of the way records
// become documents. An index written with another version is rebuilt at
// Open. Bump it with every change to newMapping or document.
//
//   - 2: no time field (record times are kept beside the index, see
//     times.go); text and stack analysed by wordsName, not standard.
//   - 3: no term vectors: phrases are checked against the records (see
//     phrase.go).
//   - 4: replayOf, the ID a replayed operation replays.
const MappingVersion = 4

// Fields of a document. Keyword fields match exactly (case-sensitive, one
// term); text fields are analysed with wordsName (see analyzer.go). The time
// field of queries is not in bleve (see times.go).
var (
	keywordFields = []string{"name", "level", "source", "kind", "tool", "status", "replayOf"}
	textFields    = []string{"text", "stack"}
	timeField     = "time"
)

// newMapping is the mapping of every segment: nothing stored (records load
// from bbolt by ID), no doc values (nothing sorts in bleve), no term vectors
// (phrases are checked against the records, see phrase.go; fragments are
// cut from the records too); no _all field (the translator sends
// unqualified terms to text and stack).
func newMapping() *mapping.IndexMappingImpl {
	m := bleve.NewIndexMapping()
	m.DefaultAnalyzer = wordsName
	m.IndexDynamic, m.StoreDynamic, m.DocValuesDynamic = false, false, false
	doc := bleve.NewDocumentStaticMapping()
	for _, f := range keywordFields {
		fm := bleve.NewKeywordFieldMapping()
		fm.Store, fm.IncludeInAll, fm.IncludeTermVectors, fm.DocValues = false, false, false, false
		doc.AddFieldMappingsAt(f, fm)
	}
	for _, f := range textFields {
		fm := bleve.NewTextFieldMapping()
		fm.Analyzer = wordsName
		fm.Store, fm.IncludeInAll, fm.IncludeTermVectors, fm.DocValues = false, false, false, false
		doc.AddFieldMappingsAt(f, fm)
	}
	m.DefaultMapping = doc
	m.DefaultField = "text"
	return m
}

// analyzers are the mapping's analyzers, resolved once.
type analyzers struct {
	keyword, text analysis.Analyzer
}

func newAnalyzers(m mapping.IndexMapping) analyzers {
	return analyzers{keyword: m.AnalyzerNamed(keyword.Name), text: m.AnalyzerNamed(wordsName)}
}

const (
	keywordOpts = index.IndexField
	textOpts    = index.IndexField
)

// docID is a record's document ID: its decimal ID.
func docID(id uint64) string { return strconv.FormatUint(id, 10) }

// document builds r's document directly, skipping bleve's reflection.
func (a *analyzers) document(r *oplog.Record) *document.Document {
	d := document.NewDocument(docID(r.ID))
	kw := func(name, v string) {
		if v != "" {
			d.AddField(document.NewTextFieldCustom(name, nil, []byte(v), keywordOpts, a.keyword))
		}
	}
	kw("name", r.Name)
	kw("level", r.Level.String())
	kw("source", r.Source)
	kw("kind", r.Kind.String())
	kw("tool", r.Tool)
	kw("status", r.Status.String())
	if r.ReplayOf != 0 {
		kw("replayOf", docID(r.ReplayOf))
	}
	if r.Text != "" {
		d.AddField(document.NewTextFieldCustom("text", nil, []byte(r.Text), textOpts, a.text))
	}
	if r.Stack != "" {
		d.AddField(document.NewTextFieldCustom("stack", nil, []byte(r.Stack), textOpts, a.text))
	}
	return d
}
