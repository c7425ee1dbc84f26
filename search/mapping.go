package search

import (
	"strconv"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/mapping"

	"github.com/mcplogd/mcplogd/oplog"
	ql "github.com/mcplogd/mcplogd/oplog/query"
)

// Fields of a record as a term set holds them. Keyword fields match
// exactly (case-sensitive, one term), but for level, kind and status whose
// values queries spell as oplog parses them (see oplog.ParseQuery);
// template is the ID of the record's template (oplog.RecordTemplateID),
// computed from the record wherever it is needed and never kept in the
// store. Text fields are analysed with wordsName (see analyzer.go). A
// chunk keeps the span of its records' times, not each time.
var (
	keywordFields = []string{"name", "level", "source", "kind", "tool", "status", "replayOf", "run", ql.TemplateField}
	textFields    = ql.TextFields // the language's fields of words
	timeField     = ql.TimeField
)

// newMapping names the analyzer of each field: bleve's keyword analyzer
// for the keyword fields, wordsName for text and stack. The evaluator
// and the term sets analyse words as it says.
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
	words         *wordsAnalyzer // text, for the documents' fields
}

func newAnalyzers(m mapping.IndexMapping) analyzers {
	text := m.AnalyzerNamed(wordsName)
	words, _ := text.(*wordsAnalyzer)
	return analyzers{keyword: m.AnalyzerNamed(keyword.Name), text: text, words: words}
}

// docID is an ID as keyword fields hold it (run, replayOf): decimal.
func docID(id uint64) string { return strconv.FormatUint(id, 10) }

// keywordField is a keyword field and its value as indexed; "" for none.
type keywordField struct{ field, v string }

// keywords spells the keyword fields that a record and a query's filters
// share, as a term set holds them and the evaluator matches them, so that
// a new field is added to both at once. level is apart: a record has one level,
// a query a minimum.
func keywords(name, source string, kind oplog.Kind, tool string, status oplog.Status, replayOf uint64) [6]keywordField {
	kw := [6]keywordField{{"name", name}, {"source", source}, {"kind", kind.String()}, {"tool", tool},
		{"status", status.String()}, {"replayOf", ""}}
	if replayOf != 0 {
		kw[5].v = docID(replayOf)
	}
	return kw
}
